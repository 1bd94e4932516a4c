// What a `cuzk prove` process loads: the formats, the engine's one-shot prover and the native core,
// not the daemon (server, rpc, Connect, gRPC, SQLite, Postgres, metrics), the report, the client or
// the logger's pino when nothing is logged. Every module load costs the whole process time that
// issue 13 measures against rapidsnark. The CLI runs in a child with a loader hook that writes each
// ES module it loads to a file; CommonJS modules (pino, koffi's loader) are read from require.cache
// at exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-imports-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.CUZK_TRACE_FILE, url + '\\n');
  return next(url, context);
}`;
const REGISTER = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(path.join(dir, 'hook.mjs')).href)});
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(process.env.CUZK_TRACE_FILE, Object.keys(cache).map((f) => 'cjs:' + f + '\\n').join('')));`;
writeFileSync(path.join(dir, 'hook.mjs'), HOOK);
writeFileSync(path.join(dir, 'register.mjs'), REGISTER);

/** The modules a `cuzk <args>` process loaded, as file paths relative to the repository root. */
function modulesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const trace = path.join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(trace, '');
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(path.join(dir, 'register.mjs')).href, 'src/cli/run.ts', ...args], {
    cwd: root,
    env: { ...process.env, CUZK_LOG: '', ...env, CUZK_TRACE_FILE: trace },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('file://') || l.startsWith('cjs:'))
    .map((l) => path.relative(root, l.startsWith('cjs:') ? l.slice(4) : fileURLToPath(l)));
}

// the daemon's world: nothing of it belongs in a local proof (server/startup/config-options.ts is the
// option table that the CLI's flag parser shares with `cuzk serve`, importing only the budget's shares)
const FORBIDDEN = [
  /^src\/server\/(?!startup\/config-options\.ts$)/,
  /^src\/(rpc|report|client|dev)\//,
  /node_modules\/(pino|@connectrpc|@bufbuild|@grpc|better-sqlite3|pg|prom-client|smol-toml|circom_runtime|snarkjs|ffjavascript)\//,
];

describe('cuzk prove loads only what a local proof needs', () => {
  const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
  const prove = ['prove', vectorFile(set, 'circuit.zkey'), vectorFile(set, 'witness.wtns'), path.join(dir, 'proof.json'), path.join(dir, 'public.json')];

  it('no daemon, report, client or pino modules (and the trace sees the prover and koffi)', () => {
    const loaded = modulesLoadedBy([...prove, '--quiet']);
    for (const needed of [/^src\/engine\/prover\.ts$/, /^src\/ffi\/load\.ts$/, /node_modules\/koffi\//]) {
      assert.ok(loaded.some((m) => needed.test(m)), `the trace saw ${needed} (loaded: ${loaded.length} modules)`);
    }
    const wrong = loaded.filter((m) => FORBIDDEN.some((re) => re.test(m)));
    assert.deepEqual(wrong, [], 'modules a local `cuzk prove` must not load');
    // the witness generators are fullprove's: a prove of a .wtns loads none of them
    const generators = loaded.filter((m) => /^src\/(engine\/(witness|native-generator|generator-file|module-worker)\.ts|cli\/witness(-build)?\.ts)$/.test(m));
    assert.deepEqual(generators, [], 'witness generator modules in a `cuzk prove`');
  });

  it('pino is loaded once the process has a line to write (--verbose)', () => {
    const loaded = modulesLoadedBy([...prove, '--verbose']);
    assert.ok(loaded.some((m) => /node_modules\/pino\//.test(m)), 'a --verbose prove logs its backend line through pino');
  });
});
