// `cuzk witness build CIRCUIT_cpp/ OUT`: circom's --c output compiled with cuzk's driver
// (native/witness/) instead of circom's main.cpp, linked statically (libgmp, libstdc++) so the
// generator runs on machines without gmp, then the .dat and a manifest appended as the trailer
// generator-file.ts describes. Checks the toolchain first and names the Debian package to install.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { InputError } from '../errors.js';
import { generatorTrailer, type GeneratorManifest } from '../engine/generator-file.js';
import { findProjectRoot } from './root.js';

interface Tool { what: string; check: string[]; pkg: string }

const TOOLS: Tool[] = [
  { what: 'g++', check: ['g++', '--version'], pkg: 'g++' },
  { what: 'nasm', check: ['nasm', '-v'], pkg: 'nasm' },
];
const HEADERS: Tool[] = [
  { what: 'gmp.h', check: ['gmp.h'], pkg: 'libgmp-dev' },
  { what: 'nlohmann/json.hpp', check: ['nlohmann/json.hpp'], pkg: 'nlohmann-json3-dev' },
];

function run(cmd: string, args: string[], cwd?: string, input?: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, maxBuffer: 16 << 20 }, (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}` }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The first missing tool or header as "X not found: install it (apt-get install PKG)", or undefined. */
export async function missingToolchain(): Promise<string | undefined> {
  const missing: string[] = [];
  for (const t of TOOLS) if (!(await run(t.check[0]!, t.check.slice(1))).ok) missing.push(`${t.what} (${t.pkg})`);
  if (missing.length === 0) {
    for (const h of HEADERS) if (!(await run('g++', ['-E', '-x', 'c++', '-'], undefined, `#include <${h.check[0]}>\n`)).ok) missing.push(`${h.what} (${h.pkg})`);
  }
  if (missing.length === 0) return undefined;
  const pkgs = missing.map((m) => m.replace(/.*\((.*)\)/, '$1'));
  return `a native witness generator needs ${missing.join(', ')}: install with \`apt-get install ${pkgs.join(' ')}\``;
}

interface Sources { dir: string; circuit: string; cpp: string; dat: string; sym?: string }

function findSources(dir: string): Sources {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError('E_NOT_FOUND', `${dir}: no such folder (circom --c writes CIRCUIT_cpp/)`);
  const files = readdirSync(dir);
  const dat = files.find((f) => f.endsWith('.dat'));
  if (!dat) throw new InputError('E_INVALID_ARG', `${dir}: no CIRCUIT.dat (not the output of circom --c?)`);
  const circuit = dat.slice(0, -4);
  for (const f of [`${circuit}.cpp`, 'calcwit.cpp', 'calcwit.hpp', 'circom.hpp', 'fr.cpp', 'fr.hpp', 'fr.asm']) {
    if (!files.includes(f)) throw new InputError('E_INVALID_ARG', `${dir}: no ${f} (not the complete output of circom --c?)`);
  }
  const sym = [path.join(dir, '..', `${circuit}.sym`), path.join(dir, `${circuit}.sym`)].find((p) => existsSync(p));
  return { dir, circuit, cpp: path.join(dir, `${circuit}.cpp`), dat: path.join(dir, dat), sym };
}

/** The main component's signal names in a circom .sym file (`label,wire,component,main.name[i]`), brackets dropped. */
async function mainSignalNames(sym: string): Promise<string[]> {
  const names = new Set<string>();
  const lines = createInterface({ input: createReadStream(sym), crlfDelay: Infinity });
  for await (const line of lines) {
    const name = line.slice(line.lastIndexOf(',') + 1);
    if (!name.startsWith('main.')) continue;
    const rest = name.slice(5);
    if (rest.includes('.')) continue;
    names.add(rest.replace(/\[\d+\]/g, ''));
  }
  return [...names];
}

function sourceHash(src: Sources): string {
  const h = createHash('sha256');
  for (const f of [src.cpp, src.dat, 'calcwit.cpp', 'fr.cpp', 'fr.asm'].map((f) => path.resolve(src.dir, f))) h.update(readFileSync(f));
  return h.digest('hex');
}

export interface BuildResult { out: string; bytes: number; circuit: string; names: number; ms: number }

/** Builds the generator at `out` (replaced atomically); InputError for a missing toolchain or sources. */
export async function buildGenerator(cppDir: string, out: string, log: (line: string) => void = () => undefined): Promise<BuildResult> {
  const t0 = performance.now();
  const src = findSources(path.resolve(cppDir));
  const missing = await missingToolchain();
  if (missing) throw new InputError('E_INVALID_ARG', missing);
  const driver = path.join(findProjectRoot(), 'native', 'witness');
  const work = mkdtempSync(path.join(tmpdir(), 'cuzk-witness-build-'));
  try {
    const cxx = ['-std=c++17', '-O3', '-I', src.dir, '-I', driver, '-c'];
    const steps: [string, string[]][] = [
      // the circuit with circom's element copies inlined (native/witness/fr_inline.hpp says why)
      ['g++', [...cxx, '-include', 'fr.hpp', '-include', path.join(driver, 'fr_inline.hpp'), src.cpp, '-o', path.join(work, 'circuit.o')]],
      ['g++', [...cxx, path.join(src.dir, 'calcwit.cpp'), '-o', path.join(work, 'calcwit.o')]],
      ['g++', [...cxx, path.join(src.dir, 'fr.cpp'), '-o', path.join(work, 'fr.o')]],
      ['nasm', ['-felf64', path.join(src.dir, 'fr.asm'), '-o', path.join(work, 'fr_asm.o')]],
      ['g++', [...cxx, path.join(driver, 'generator.cpp'), '-o', path.join(work, 'generator.o')]],
    ];
    log(`compiling ${src.circuit} (${steps.length} units, ${Math.min(steps.length, availableParallelism())} at once)...`);
    const queue = [...steps];
    const worker = async () => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        const r = await run(s[0], s[1], work);
        if (!r.ok) throw new InputError('E_INVALID_ARG', `${s[0]} ${path.basename(s[1].find((a) => /\.(cpp|asm)$/.test(a)) ?? '')} failed: ${r.out.trim().split('\n').slice(0, 3).join(' | ')}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(steps.length, availableParallelism()) }, worker));
    const elf = path.join(work, 'generator');
    const objs = ['circuit.o', 'calcwit.o', 'fr.o', 'fr_asm.o', 'generator.o'].map((o) => path.join(work, o));
    const link = await run('g++', ['-static', '-o', elf, ...objs, '-lgmp', '-Wl,-z,noexecstack'], work);
    if (!link.ok) throw new InputError('E_INVALID_ARG', `linking the generator failed: ${link.out.trim().split('\n').slice(0, 3).join(' | ')}`);
    const names = src.sym ? await mainSignalNames(src.sym) : [];
    const manifest: GeneratorManifest = { format: 1, circuit: src.circuit, sourceSha256: sourceHash(src), names };
    const image = readFileSync(elf);
    const bytes = Buffer.concat([image, generatorTrailer(image.byteLength, readFileSync(src.dat), manifest)]);
    const tmp = `${out}.tmp-${process.pid}`;
    writeFileSync(tmp, bytes);
    chmodSync(tmp, 0o755);
    renameSync(tmp, out);
    return { out, bytes: bytes.byteLength, circuit: src.circuit, names: names.length, ms: performance.now() - t0 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
