// Paths clients name are opened only inside the configured directories: openConfined on its own
// (symlinks, `..`, prefixes, FIFOs, directories; the same answer for anything outside), then a real
// daemon: LoadKey and job keys confined to files.key_dirs, wasm to files.input_dirs, a FIFO refused
// without freezing the daemon, uploads still working, and registered keys re-checked on restart.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { CuzkError as ServerError } from '../../src/errors.js';
import { checkConfined, openConfined } from '../../src/server/intake/file-access.js';
import { makeDataDir, removeDataDir, startDaemon, type DaemonProcess } from '../helpers/daemon.js';
import { useTmpDir } from '../helpers/tmp.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const tmp = useTmpDir('cuzk-files-');
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;

async function refused(p: Promise<unknown>, code: string): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ServerError || err instanceof CuzkError, `expected ${code}, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err.message;
}

/** allowed/ (with a file, a dir, a FIFO, symlinks in and out) beside outside/ (with a secret). */
function layout() {
  const root = realpathSync(tmp());
  const allowed = path.join(root, 'allowed');
  const outside = path.join(root, 'outside');
  mkdirSync(path.join(allowed, 'sub'), { recursive: true });
  mkdirSync(path.join(outside, 'dir'), { recursive: true });
  mkdirSync(`${allowed}-evil`);
  writeFileSync(path.join(allowed, 'k.zkey'), 'zkey0123');
  writeFileSync(path.join(outside, 'secret'), 'root:x:0:0');
  writeFileSync(path.join(`${allowed}-evil`, 'k.zkey'), 'zkey');
  symlinkSync(path.join(allowed, 'k.zkey'), path.join(allowed, 'link-in.zkey'));
  symlinkSync(path.join(outside, 'secret'), path.join(allowed, 'link-out.zkey'));
  symlinkSync(outside, path.join(allowed, 'outdir'));
  execFileSync('mkfifo', [path.join(allowed, 'fifo.zkey')]);
  return { root, allowed, outside };
}

describe('openConfined', () => {
  it('opens a regular file inside, through symlinks that stay inside; gives the real path and size', async () => {
    const { allowed } = layout();
    const f = await openConfined(path.join(allowed, 'link-in.zkey'), [allowed], 'key');
    try {
      assert.equal(f.path, path.join(allowed, 'k.zkey'));
      assert.equal(f.size, 8);
      assert.equal((await f.handle.readFile()).toString(), 'zkey0123');
    } finally {
      await f.handle.close();
    }
    assert.deepEqual(await checkConfined(path.join(allowed, 'sub', '..', 'k.zkey'), [path.join(allowed, 'sub', '..')], 'key'), { path: path.join(allowed, 'k.zkey'), size: 8 });
  });

  it('anything outside gets one answer, whatever is there: a file, a directory, nothing', async () => {
    const { allowed, outside } = layout();
    const probes = [
      path.join(outside, 'secret'), // exists
      path.join(outside, 'dir'), // a directory
      path.join(outside, 'missing'), // nothing
      path.join(outside, 'missing', 'deeper'),
      path.join(outside, 'secret', 'x'), // below a file
      path.join(allowed, '..', 'outside', 'secret'), // `..` out
      path.join(allowed, 'link-out.zkey'), // a symlink inside pointing out
      path.join(allowed, 'outdir', 'secret'), // through a symlinked directory
      path.join(allowed, 'outdir', 'missing'),
      path.join(`${allowed}-evil`, 'k.zkey'), // a sibling sharing the prefix
      '/etc/shadow',
      '/etc',
    ];
    const answers = new Set<string>();
    for (const p of probes) {
      const msg = await refused(openConfined(p, [allowed], 'key'), 'E_INVALID_ARG');
      assert.ok(!msg.includes('root:x') && !msg.replace(p, '').includes(outside), `${msg} reveals more than the path given`);
      answers.add(msg.replace(p, '<path>'));
    }
    assert.equal(answers.size, 1, [...answers].join('\n'));
    assert.match([...answers][0]!, /^key <path>: not inside a directory this daemon reads key files from/);
  });

  it('inside: a missing file is E_NOT_FOUND; a directory or a FIFO is not a regular file (and a FIFO does not block)', async () => {
    const { allowed } = layout();
    assert.match(await refused(openConfined(path.join(allowed, 'missing.zkey'), [allowed], 'key'), 'E_NOT_FOUND'), /missing\.zkey: no such file/);
    assert.match(await refused(openConfined(path.join(allowed, 'sub'), [allowed], 'key'), 'E_INVALID_ARG'), /sub: not a regular file/);
    // no writer ever opens the FIFO: a blocking open would never return
    assert.match(await refused(openConfined(path.join(allowed, 'fifo.zkey'), [allowed], 'key'), 'E_INVALID_ARG'), /fifo\.zkey: not a regular file/);
    await refused(openConfined('', [allowed], 'key'), 'E_INVALID_ARG');
    await refused(openConfined(`${allowed}/k.zkey\0x`, [allowed], 'key'), 'E_INVALID_ARG');
    await refused(openConfined(path.join(allowed, 'k.zkey'), [], 'key'), 'E_INVALID_ARG');
  });
});

describe('cuzk serve: files only from the configured directories', () => {
  let d: DaemonProcess;
  let keys: string;
  let inputs: string;
  let c: CuzkClient;
  const witness = () => new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
  before(async () => {
    const root = makeDataDir();
    keys = path.join(root, 'keys-here');
    inputs = path.join(root, 'inputs-here');
    mkdirSync(keys);
    mkdirSync(inputs);
    copyFileSync(vectorFile(bnMult, 'circuit.zkey'), path.join(keys, 'mult.zkey'));
    copyFileSync(vectorFile(bnMult, 'circuit.wasm'), path.join(inputs, 'mult.wasm'));
    execFileSync('mkfifo', [path.join(keys, 'fifo.zkey')]);
    d = await startDaemon({ dataDir: path.join(root, 'data'), args: ['--key-dirs', keys, '--input-dirs', inputs] });
    c = new CuzkClient({ address: d.address });
  });
  after(async () => {
    if (d.proc.exitCode === null) assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(path.dirname(keys));
  });

  it('LoadKey by path: outside key_dirs is refused without a byte, size or kind of the file; inside loads', async () => {
    const shadow = await refused(c.loadKey({ path: '/etc/shadow' }), 'E_INVALID_ARG');
    assert.doesNotMatch(shadow, /root:|bytes|is a directory|no such/);
    const missing = await refused(c.loadKey({ path: '/etc/no-such-file.zkey' }), 'E_INVALID_ARG');
    const dir = await refused(c.loadKey({ path: '/etc' }), 'E_INVALID_ARG');
    assert.equal(missing.replace('/etc/no-such-file.zkey', '/etc/shadow'), shadow);
    assert.equal(dir.replace('/etc', '/etc/shadow'), shadow);
    await refused(c.loadKey({ path: vectorFile(bnMult, 'circuit.zkey') }), 'E_INVALID_ARG'); // the vectors are not configured here
    await refused(c.loadKey({ path: path.join(keys, 'nope.zkey') }), 'E_NOT_FOUND');
    const k = await c.loadKey({ path: path.join(keys, 'mult.zkey') }, 'mult');
    assert.equal(k.id, 'mult');
    const up = await c.loadKey({ zkey: new Uint8Array(readFileSync(vectorFile(bnMult, 'circuit.zkey'))) });
    assert.match(up.id, /^sha256:/);
    assert.equal((await c.prove({ key: up.id, witnesses: [witness()] })).state, 'completed', 'an uploaded key still works');
  });

  it('a FIFO in key_dirs is refused at once and the daemon keeps answering', { timeout: 60_000 }, async () => {
    assert.match(await refused(c.loadKey({ path: path.join(keys, 'fifo.zkey') }), 'E_INVALID_ARG'), /not a regular file/);
    assert.match(await refused(c.submit({ key: path.join(keys, 'fifo.zkey'), witnesses: [witness()] }), 'E_INVALID_ARG'), /not a regular file/);
    assert.equal((await c.status()).backend, 'cpu');
  });

  it('jobs: a key path outside key_dirs and a wasm outside input_dirs are refused; inside they prove', async () => {
    await refused(c.submit({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [witness()] }), 'E_INVALID_ARG');
    await refused(c.submit({ key: '/etc/passwd/x.zkey', witnesses: [witness()] }), 'E_INVALID_ARG');
    const input = JSON.parse(readFileSync(vectorFile(bnMult, 'input.json'), 'utf8')) as Record<string, unknown>;
    const key = path.join(keys, 'mult.zkey');
    await refused(c.submit({ key, inputs: [input], wasm: vectorFile(bnMult, 'circuit.wasm') }), 'E_INVALID_ARG');
    await refused(c.submit({ key, inputs: [input], wasm: path.join(inputs, 'nope.wasm') }), 'E_NOT_FOUND');
    assert.equal((await c.prove({ key, witnesses: [witness()] })).state, 'completed');
    assert.equal((await c.prove({ key, inputs: [input], wasm: path.join(inputs, 'mult.wasm') })).state, 'completed');
  });

  it('on restart, registered keys are re-checked: one outside the new key_dirs is not reloaded, uploads are', async () => {
    assert.equal(await d.stop(), 0, d.logs());
    d = await startDaemon({ dataDir: d.dataDir, args: ['--key-dirs', inputs, '--input-dirs', inputs] });
    c = new CuzkClient({ address: d.address });
    const ids = (await c.listKeys()).map((k) => k.id);
    assert.ok(!ids.includes('mult'), ids.join(', '));
    assert.ok(ids.some((id) => id.startsWith('sha256:')), `${ids.join(', ')}\n${d.logs()}`);
    assert.match(d.logs(), /registered key could not be reloaded/);
  });
});
