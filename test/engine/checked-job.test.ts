// A job is checked once (engine.check, or submit of a plain request): its witnesses' headers are
// parsed there and nowhere after, a CheckedJob is submitted without a second check, a copy of one
// (even with the same fields) is checked in full, known layouts skip the parse entirely, and a
// witness file that changed after its header was read is caught by its size when its proof starts.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { createEngine, type CheckedJob, type Engine } from '../../src/index.js';
import { checkKeyUnchanged } from '../../src/engine/checked-job.js';
import { BN128 } from '../../src/formats/curves.js';
import { encodeWtns, WtnsFile } from '../../src/formats/wtns.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';
import { useTmpDir } from '../helpers/tmp.js';

const set = (curve: string, circuit: string) => vectorSets().find((s) => s.curve === curve && s.circuit === circuit)!;
const bytes = (s: VectorSet, f: string) => new Uint8Array(readFileSync(vectorFile(s, f)));
const mult = set('bn128', 'multiplier');
const zkey = vectorFile(mult, 'circuit.zkey');
const w1 = bytes(mult, 'witness.wtns');
const w2 = bytes(mult, 'witness2.wtns');

/** Counts header parses: every way a .wtns is parsed goes through WtnsFile.open or fromBytes. */
function countParses(): { open: () => number; fromBytes: () => number } {
  const open = mock.method(WtnsFile, 'open');
  const fromBytes = mock.method(WtnsFile, 'fromBytes');
  return { open: () => open.mock.callCount(), fromBytes: () => fromBytes.mock.callCount() };
}

function code(c: string, re?: RegExp) {
  return (err: Error & { code?: string }) => err.code === c && (re === undefined || re.test(err.message));
}

describe('checked jobs', () => {
  let e: Engine;
  const tmp = useTmpDir();
  before(async () => {
    e = await createEngine({ threads: 2 });
  });
  after(async () => {
    await e.close();
  });
  afterEach(() => {
    mock.restoreAll();
    e.resume();
  });

  it('parses each witness once, at check; a checked job is submitted and proved without another parse', async () => {
    const file = path.join(tmp(), 'w2.wtns');
    copyFileSync(vectorFile(mult, 'witness2.wtns'), file);
    const n = countParses();
    const byBytes = e.check({ key: zkey, witnesses: [w1, w2] });
    const byFile = e.check({ key: zkey, witnessFiles: [file] });
    assert.deepEqual([n.fromBytes(), n.open()], [2, 1]);
    assert.equal(byBytes.partitions, 2);
    assert.equal(byBytes.priority, 'normal');
    assert.equal(byBytes.key, path.resolve(zkey), 'the key as resolved');
    for (const c of [byBytes, byFile]) assert.equal((await e.await(e.submit(c).id)).state, 'completed');
    assert.deepEqual([n.fromBytes(), n.open()], [2, 1], 'no parse after the check');
    // a plain request is checked by submit itself, once
    assert.equal((await e.await(e.submit({ key: zkey, witnesses: [w1] }).id)).state, 'completed');
    assert.equal(n.fromBytes(), 3);
  });

  it('a copy of a checked job is an ordinary request: checked in full', async () => {
    const checked = e.check({ key: zkey, witnesses: [w1] });
    assert.ok(Object.isFrozen(checked) && Object.isFrozen(checked.witnesses));
    assert.throws(() => ((checked as { key: string }).key = 'other'), TypeError);
    const n = countParses();
    const copy: CheckedJob = { ...checked };
    assert.equal((await e.await(e.submit(copy).id)).state, 'completed');
    assert.equal(n.fromBytes(), 1, 'the copy was parsed again');
    // the same fields with a witness that is no .wtns: refused, where the original would not have been looked at
    assert.throws(() => e.submit({ ...checked, witnesses: [w1.subarray(0, 20)] }), /witness 0/);
    const other = await createEngine({ threads: 1 });
    try {
      assert.equal((await other.await(other.submit(checked).id)).state, 'completed', "another engine's check counts for nothing there");
      assert.equal(n.fromBytes(), 3);
    } finally {
      await other.close();
    }
  });

  it('matches witnesses with the key at check, loaded or not; a deadline of 0 is none', async () => {
    const other = bytes(set('bn128', 'poseidon'), 'witness.wtns');
    const fresh = path.join(tmp(), 'fresh.zkey'); // a key not loaded yet: its header is read at check
    copyFileSync(zkey, fresh);
    for (const key of [zkey, fresh]) assert.throws(() => e.check({ key, witnesses: [other] }), code('E_FORMAT', /witness 0: witness has \d+ values but the key expects \d+/));
    const none = e.submit({ key: fresh, witnesses: [w1], deadlineMs: 0 });
    assert.equal((await e.await(none.id)).state, 'completed');
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1], deadlineMs: -1 }), code('E_INVALID_ARG', /deadlineMs must be 0 \(none\) or a positive integer/));
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1], deadlineMs: 1.5 }), code('E_INVALID_ARG'));
    assert.equal('deadlineMs' in e.check({ key: zkey, witnesses: [w1], deadlineMs: 0 }), false);
  });

  it('known layouts: nothing is parsed; a witness file changed after its header was read fails on its size', async () => {
    const file = path.join(tmp(), 'w.wtns');
    writeFileSync(file, w1);
    const first = WtnsFile.open(file);
    const layout = first.layout;
    first.close();
    const n = countParses();
    assert.equal((await e.await(e.submit(e.check({ key: zkey, witnessFiles: [file] }, { witnesses: [layout] })).id)).state, 'completed');
    assert.deepEqual([n.fromBytes(), n.open()], [0, 0]);
    assert.throws(() => e.check({ key: zkey, witnessFiles: [file, file] }, { witnesses: [layout] }), code('E_INVALID_ARG', /1 known witness layouts for 2/));
    const other = bytes(set('bn128', 'poseidon'), 'witness.wtns');
    const wrong = WtnsFile.fromBytes(other, 'other').layout;
    assert.throws(() => e.check({ key: zkey, witnessFiles: [file] }, { witnesses: [wrong] }), code('E_FORMAT', /a witness of another circuit/));

    e.pause();
    const job = e.submit(e.check({ key: zkey, witnessFiles: [file] }, { witnesses: [layout] }));
    // replaced after the check by a witness of another length
    writeFileSync(file, encodeWtns(layout.header.prime, [1n, 2n, 3n]));
    e.resume();
    const info = await e.await(job.id);
    assert.equal(info.state, 'failed');
    assert.equal(info.error!.code, 'E_FORMAT');
    assert.match(info.error!.message, /it was \d+ when its header was read: it changed since/);
  });

  it('a key file replaced between the check and its load is refused by the pipeline, naming the change', () => {
    const z = ZkeyFile.open(zkey);
    const h = z.header;
    z.close();
    checkKeyUnchanged(h, h);
    checkKeyUnchanged({ curve: h.curve, r: h.r, nVars: h.nVars }, h);
    assert.throws(() => checkKeyUnchanged({ curve: 'bn128', r: BN128.r, nVars: h.nVars + 1 }, h), code('E_FORMAT', /the \.zkey file changed after the job was submitted/));
  });
});
