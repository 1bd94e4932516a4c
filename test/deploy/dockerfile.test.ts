// deploy/Dockerfile without a container engine (none runs on these machines): every file it copies
// from the build context exists and is not in deploy/Dockerfile.dockerignore; every file it copies
// from the build stage is either a repository file that reached that stage or something `npm ci`
// builds (dist/, build/native/*.so, node_modules); every npm script it runs exists (npm ci runs
// "install"); the Node it installs meets package.json's engines floor; its ENTRYPOINT is a real
// `cuzk serve` command line, and its HEALTHCHECK path is one the daemon answers.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkCuzkArgv, DEPLOY, ROOT } from './deploy-files.js';

interface Instruction { op: string; args: string; stage: string; workdir: string }

/** Instructions with continuation lines joined and comments dropped, each with its stage and WORKDIR. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = '';
  let workdir = '/';
  const logical = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ');
  for (const line of logical.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === 'FROM') {
      stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(out.filter((i) => i.op === 'FROM').length);
      workdir = '/';
    }
    if (op === 'WORKDIR') workdir = path.posix.resolve(workdir, args);
    out.push({ op, args, stage, workdir });
  }
  return out;
}

/** COPY/ADD: its --from stage (or undefined: the build context), its sources and destination. */
function copyArgs(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1]! };
}

const dockerfile = parseDockerfile(readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8'));
const ignored = readFileSync(path.join(DEPLOY, 'Dockerfile.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
const isIgnored = (rel: string) => ignored.some((p) => rel === p || rel.startsWith(p + '/'));

/** What `npm ci` in the build stage makes that the repository does not hold, each tied to where it is decided. */
function buildOutput(rel: string): string | undefined {
  const outDir = (JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { outDir: string } }).compilerOptions.outDir;
  if (rel === outDir) return `tsc's outDir (tsconfig.json), built by the install script: ${pkg.scripts.install}`;
  if (rel === 'node_modules') return 'npm ci';
  if (/^build\/native\/[^/]*\.so$/.test(rel) && readFileSync(path.join(ROOT, 'src', 'ffi', 'load.ts'), 'utf8').includes("'build', 'native'")) return 'scripts/build-native.mjs (where src/ffi/load.ts looks)';
  return undefined;
}

describe('deploy/Dockerfile', () => {
  it('copies from the build context only files that exist and are not ignored', () => {
    const copies = dockerfile.filter((i) => (i.op === 'COPY' || i.op === 'ADD') && !copyArgs(i.args).from);
    assert.ok(copies.length > 0, 'no COPY from the build context');
    for (const c of copies) {
      for (const src of copyArgs(c.args).sources) {
        assert.ok(existsSync(path.join(ROOT, src)), `${c.op} ${c.args}: ${src} is not in the repository`);
        assert.ok(src === '.' || !isIgnored(path.posix.normalize(src)), `${c.op} ${c.args}: ${src} is excluded by deploy/Dockerfile.dockerignore`);
      }
    }
  });

  it('copies from the build stage only what reached it or what npm ci builds there', () => {
    const copies = dockerfile.filter((i) => i.op === 'COPY' && copyArgs(i.args).from);
    assert.ok(copies.length > 0, 'no COPY --from');
    for (const c of copies) {
      const { from, sources } = copyArgs(c.args);
      const stage = dockerfile.find((i) => i.op === 'FROM' && i.stage === from);
      assert.ok(stage, `COPY ${c.args}: no stage named ${from}`);
      const contextCopy = dockerfile.find((i) => i.stage === from && i.op === 'COPY' && !copyArgs(i.args).from && copyArgs(i.args).sources.includes('.'));
      assert.ok(contextCopy, `stage ${from} copies no build context`);
      const contextAt = path.posix.resolve(contextCopy.workdir, copyArgs(contextCopy.args).dest);
      for (const src of sources) {
        const rel = path.posix.relative(contextAt, src);
        assert.ok(!rel.startsWith('..'), `COPY ${c.args}: ${src} is outside ${contextAt}, where stage ${from} has the repository`);
        const made = buildOutput(rel);
        if (made) continue;
        assert.ok(existsSync(path.join(ROOT, rel)), `COPY ${c.args}: ${rel} is neither in the repository nor built by npm ci`);
        assert.ok(!isIgnored(rel), `COPY ${c.args}: ${rel} is excluded by deploy/Dockerfile.dockerignore, so the build stage never had it`);
      }
    }
  });

  it('runs only npm scripts package.json has', () => {
    const runs = dockerfile.filter((i) => i.op === 'RUN').map((i) => i.args);
    const npm = runs.flatMap((r) => [...r.matchAll(/\bnpm\s+(ci|install|run\s+[\w:-]+|prune)\b/g)].map((m) => m[1]!));
    assert.ok(npm.includes('ci'), 'the build stage must run npm ci (it builds the native cores and dist/)');
    assert.ok(existsSync(path.join(ROOT, 'package-lock.json')), 'npm ci needs package-lock.json');
    assert.ok(pkg.scripts.install, 'npm ci builds through the "install" script, and package.json has none');
    for (const n of npm.filter((c) => c.startsWith('run'))) {
      const script = n.split(/\s+/)[1]!;
      assert.ok(pkg.scripts[script], `RUN npm run ${script}: no such script in package.json`);
    }
  });

  it('installs a Node that meets package.json engines', () => {
    const floor = Number(/>=\s*(\d+)/.exec(pkg.engines.node)?.[1]);
    const majors = dockerfile.filter((i) => i.op === 'RUN').flatMap((i) => [...i.args.matchAll(/setup_(\d+)\.x/g)].map((m) => Number(m[1])));
    assert.ok(majors.length > 0, 'no NodeSource setup_NN.x line: which Node does the image get?');
    for (const major of majors) assert.ok(major >= floor, `the image installs Node ${major}, package.json engines says ${pkg.engines.node}`);
  });

  it('starts a real cuzk serve command line and health-checks a path the daemon answers', async () => {
    const entry = dockerfile.find((i) => i.op === 'ENTRYPOINT');
    assert.ok(entry, 'no ENTRYPOINT');
    const [node, script, ...argv] = JSON.parse(entry.args) as string[];
    assert.equal(node, 'node');
    assert.ok(existsSync(path.join(ROOT, script!)), `ENTRYPOINT runs ${script}, which is not in the repository`);
    const { command } = await checkCuzkArgv(argv, 'ENTRYPOINT');
    assert.equal(command, 'serve');
    const health = dockerfile.find((i) => i.op === 'HEALTHCHECK');
    const route = /127\.0\.0\.1:\d+(\/\S*)/.exec(health?.args ?? '')?.[1];
    assert.ok(route, 'HEALTHCHECK curls no daemon path');
    assert.ok(readFileSync(path.join(ROOT, 'src', 'server', 'transport', 'http.ts'), 'utf8').includes(`url === '${route}'`), `HEALTHCHECK ${route}: the daemon has no such route (src/server/transport/http.ts)`);
  });
});
