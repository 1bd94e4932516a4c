// The daemon's path from intake to the engine, in process: the key is resolved once (resolveKey:
// confined, then its shape), each witness's header is read once, as it is stored, claimed or opened
// in place, and carried beside the file (SpooledWitness.layout) into engine.check; the engine then
// parses no witness, at check or when the proof starts. Layouts are not journaled: a job read back
// from the journal is checked from its files. A spool file changed after intake fails on its size.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { OPTIONS } from '../../src/server/startup/config-options.js';
import { createEngine, type Engine, type JobRequest } from '../../src/index.js';
import { encodeWtns, WtnsFile } from '../../src/formats/wtns.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { createLogger } from '../../src/log.js';
import { jobFromRow, jobToRow, type JobRow } from '../../src/server/journal/job-row.js';
import { checkJobRequest } from '../../src/server/intake/request-check.js';
import { WitnessSpool, type SpooledWitness } from '../../src/server/intake/spool.js';
import { knownParts, WitnessIntake } from '../../src/server/intake/witness-intake.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const mult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const w1 = new Uint8Array(readFileSync(vectorFile(mult, 'witness.wtns')));
const w2 = new Uint8Array(readFileSync(vectorFile(mult, 'witness2.wtns')));

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cuzk-intake-')));
const keyDir = path.join(dir, 'keys'), inputDir = path.join(dir, 'inputs');
const zkey = path.join(keyDir, 'mult.zkey');
const cfg = { maxJobBytes: 1 << 24, maxPartitions: 8, keyDirs: [keyDir], inputDirs: [inputDir] };

/** Every way a .wtns or .zkey header is parsed: WtnsFile.open / fromBytes, ZkeyFile.open. */
function countParses(): () => number[] {
  const m = [mock.method(WtnsFile, 'open'), mock.method(WtnsFile, 'fromBytes'), mock.method(ZkeyFile, 'open')];
  return () => m.map((x) => x.mock.callCount());
}

/** The engine request job-service builds for a journaled job (its #engineRequest), for these files. */
const requestFor = (key: string, files: readonly SpooledWitness[]): JobRequest => ({ key, witnessFiles: files.map((f) => f.path) });

describe('witness intake → engine check', () => {
  let engine: Engine;
  let spool: WitnessSpool;
  let intake: WitnessIntake;
  before(async () => {
    mkdirSync(keyDir);
    mkdirSync(inputDir);
    copyFileSync(vectorFile(mult, 'circuit.zkey'), zkey);
    engine = await createEngine({ threads: 2 });
    spool = new WitnessSpool(path.join(dir, 'spool'), 60_000, createLogger('silent'));
    await spool.open(new Set());
    intake = new WitnessIntake(engine, spool, cfg);
  });
  after(async () => {
    spool.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    mock.restoreAll();
    engine.resume();
  });

  it('resolves the key once: confined to key_dirs, by id once loaded', async () => {
    const key = await intake.resolveKey(zkey);
    assert.deepEqual([key.name, key.id, key.nVars, key.bytes], [zkey, zkey, 8, statSync(zkey).size]);
    await assert.rejects(intake.resolveKey(vectorFile(mult, 'circuit.zkey')), (e: Error & { code?: string }) => e.code === 'E_INVALID_ARG', 'outside files.key_dirs');
    await assert.rejects(intake.resolveKey('no-such-id'), /unknown key "no-such-id"/);
    await engine.loadKey(zkey, { id: 'mult' });
    assert.equal((await intake.resolveKey('mult')).id, 'mult');
    const byPath = await intake.resolveKey(path.join(keyDir, '.', 'mult.zkey'));
    assert.deepEqual([byPath.id, byPath.name], ['mult', zkey], 'its path finds the loaded key; the job keeps the real path');
    engine.evictKey('mult');
  });

  it('inline bytes, uploads and files in place: each header read once, none parsed by the engine', async () => {
    const key = await intake.resolveKey(zkey); // not loaded: the engine takes the shape read here
    const inline = await intake.files(checkJobRequest({ key: key.name, witnesses: [w1, w2] }, cfg), key);
    const up = await intake.upload(key.name, w2.length, (async function* () { yield w2.subarray(0, 50); yield w2.subarray(50); })(), 'upload');
    const claimed = await intake.files(checkJobRequest({ key: key.name, witnessIds: [up.id] }, cfg), key);
    const onDisk = path.join(inputDir, 'w1.wtns');
    writeFileSync(onDisk, w1);
    const inPlace = await intake.files(checkJobRequest({ key: key.name, witnessFiles: [onDisk] }, cfg), key);
    for (const files of [inline, claimed, inPlace]) {
      assert.ok(files!.every((f) => f.layout !== undefined), 'the header read at intake travels with the file');
      const parses = countParses();
      const checked = engine.check(requestFor(key.name, files!), knownParts(files, key));
      const id = engine.submit(checked).id;
      assert.deepEqual(parses(), [0, 0, 0], 'no witness and no key header parsed at check');
      const info = await engine.await(id);
      assert.equal(info.state, 'completed', info.error?.message);
      assert.deepEqual(parses().slice(0, 2), [0, 0], 'nor any witness when the proofs ran (the key is read by its load)');
      mock.restoreAll();
    }
    await spool.release([...inline!, ...claimed!]);
  });

  it('a job read back from the journal has no layouts and is checked from its files', async () => {
    const key = await intake.resolveKey(zkey);
    const files = (await intake.files(checkJobRequest({ key: key.name, witnesses: [w1] }, cfg), key))!;
    const stored = { id: 'j1', fingerprint: 'f', key: key.name, priority: 'normal' as const, state: 'queued' as const, partitions: 1, submittedAt: 1, request: { witnessFiles: files } };
    const row = jobToRow(stored);
    assert.doesNotMatch(String(row.witness_files), /layout/);
    const back = jobFromRow({ ...row, result: null } as JobRow).request!.witnessFiles!;
    assert.deepEqual(back, files.map(({ layout: _, ...f }) => f));
    assert.deepEqual(knownParts(back), {});
    const parses = countParses();
    const info = await engine.await(engine.submit(requestFor(key.name, back), knownParts(back, key)).id);
    assert.equal(info.state, 'completed', info.error?.message);
    assert.deepEqual(parses().slice(0, 2), [1, 0], 'the file parsed once, at check');
    await spool.release(files);
  });

  it('a spool file replaced after intake fails its job on its size', async () => {
    const key = await intake.resolveKey(zkey);
    const files = (await intake.files(checkJobRequest({ key: key.name, witnesses: [w1] }, cfg), key))!;
    engine.pause();
    const job = engine.submit(engine.check(requestFor(key.name, files), knownParts(files, key)));
    writeFileSync(files[0]!.path, encodeWtns(files[0]!.layout!.header.prime, [1n, 2n, 3n, 4n, 5n]));
    engine.resume();
    const info = await engine.await(job.id);
    assert.equal(info.state, 'failed');
    assert.equal(info.error!.code, 'E_FORMAT');
    assert.match(info.error!.message, /changed since/);
    await spool.release(files);
  });
  it('limits.max_job_bytes: 0 by default, which refuses no witness of its key\'s size; a set one is E_LIMIT naming it and its option', async () => {
    const byDefault = OPTIONS.find((o) => o.name === 'maxJobBytes')!.default;
    assert.equal(byDefault, 0);
    // a 2^24 key's witness (the 256 MiB default refused it): only its size is announced, then abandoned
    const open = new WitnessIntake(engine, spool, { ...cfg, maxJobBytes: byDefault });
    const sink = await open.begin(zkey, 536_871_020, 'upload');
    await sink.abort();
    const onDisk = path.join(inputDir, 'w-limit.wtns');
    writeFileSync(onDisk, w1);
    const key = await open.resolveKey(zkey);
    const files = await open.files(checkJobRequest({ key: key.name, witnesses: [w1, w2] }, { ...cfg, maxJobBytes: 0 }), key);
    await spool.release(files!);
    const limited = { ...cfg, maxJobBytes: w1.length - 1 };
    const tight = new WitnessIntake(engine, spool, limited);
    const isLimit = (what: RegExp) => (e: unknown) => e instanceof CuzkError && e.code === 'E_LIMIT' && what.test(e.message) &&
      e.message.includes(`more than limits.max_job_bytes ${w1.length - 1} (--max-job-bytes`) && !e.message.includes('\n');
    assert.throws(() => checkJobRequest({ key: key.name, witnesses: [w1] }, limited), isLimit(new RegExp(`witnesses is ${w1.length} bytes`)));
    assert.throws(() => checkJobRequest({ key: key.name, inputs: [{ a: 'x'.repeat(w1.length) }], generator: 'c.wasm' }, limited), isLimit(/inputs \(JSON\) is/));
    await assert.rejects(tight.begin(zkey, w1.length, 'upload'), isLimit(new RegExp(`^upload: the witness is ${w1.length} bytes`)));
    await assert.rejects(tight.files(checkJobRequest({ key: key.name, witnessFiles: [onDisk] }, limited), key), isLimit(new RegExp(`witness files is ${w1.length} bytes`)));
  });
});
