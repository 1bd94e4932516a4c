// ProvingKey.load's read road (one native pass: sections into mappings, checked as they land): a bad
// coefficient record is named exactly as the format reader names it, before any later bad point; a
// key file that shrinks after it was opened is E_FORMAT saying where it ended (read, never mapped:
// no SIGBUS); a load reports where its time went, pinned or not.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { readKeySections, type NativeSection } from '../../src/engine/key-points.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { curveByName } from '../../src/formats/curves.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const zkeyPath = vectorFile(set, 'circuit.zkey');
let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-provingkey-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the vector key with `edit` applied to its bytes (positions from its section table). */
function edited(name: string, edit: (b: Buffer, z: ZkeyFile) => void): string {
  const bytes = Buffer.from(readFileSync(zkeyPath));
  const z = ZkeyFile.open(zkeyPath);
  try {
    edit(bytes, z);
  } finally {
    z.close();
  }
  const out = path.join(dir, name);
  writeFileSync(out, bytes);
  return out;
}

describe('ProvingKey.load reads and checks in one pass', () => {
  it('a bad coefficient record: E_FORMAT in the format reader\'s words, and before a bad point after it', async () => {
    const r = curveByName('bn128')!.r;
    const cases: [number, number, number | 'r'][] = [[1, 0, 2], [2, 1, set.domainSize], [3, 2, set.nVars], [4, 3, 'r']];
    for (const [record, field, value] of cases) {
      const file = edited(`coef-${field}.zkey`, (b, z) => {
        const at = z.sectionPosition('coefs') + record * 44;
        if (typeof value === 'number') b.writeUInt32LE(value, at + 4 * field);
        else for (let i = 0; i < 32; i++) b[at + 12 + i] = Number((r >> BigInt(8 * i)) & 0xffn);
        b[z.sectionPosition('H') + 64] ^= 1; // a bad point later in the file too
      });
      const z = ZkeyFile.open(file);
      let expected: string;
      try {
        expected = (() => { try { z.read('coefs'); return 'no error'; } catch (e) { return (e as Error).message; } })();
      } finally {
        z.close();
      }
      assert.match(expected, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: zkey section 4: coefficient record ${record} has `));
      await assert.rejects(ProvingKey.load(file), (e: unknown) => e instanceof CuzkError && e.code === 'E_FORMAT' && e.message === expected);
    }
  });

  it('a key file that shrinks after it was opened: E_FORMAT naming where it ended, buffers intact', async () => {
    const file = edited('shrinks.zkey', () => {});
    const z = ZkeyFile.open(file);
    const names: NativeSection[] = ['coefs', 'A', 'B1', 'B2', 'C', 'H'];
    const into = new Map(names.map((n) => [n, NativeBuffer.allocMapped(Math.max(64, z.sectionBytes(n)))]));
    const cut = z.sectionPosition('B2') + 100;
    try {
      truncateSync(file, cut);
      await assert.rejects(readKeySections(z, into), (e: unknown) => {
        assert.ok(e instanceof CuzkError && e.code === 'E_FORMAT', String(e));
        assert.equal(e.message, `${file}: file ended at byte ${cut}, before the ${readFileSync(zkeyPath).length} bytes it had when opened`);
        return true;
      });
    } finally {
      z.close();
      for (const b of into.values()) b.release();
    }
  });

  it('reports its phases, pinned (in place) or not', async () => {
    for (const pinned of [false, true]) {
      const key = await ProvingKey.load(zkeyPath, { pinned });
      try {
        const t = key.timings;
        for (const v of [t.allocMs, t.readMs, t.pinMs, t.planMs]) assert.ok(v >= 0 && v <= t.totalMs, JSON.stringify(t));
        assert.ok(t.allocMs + t.readMs + t.pinMs + t.planMs <= t.totalMs + 1e-6, JSON.stringify(t));
        assert.equal(key.bytes, ProvingKey.inspect(zkeyPath).bytes);
      } finally {
        key.release();
      }
      assert.equal(key.released, true);
    }
  });

  it('pinAfterReads: called once, after every section is read, and the key loads', async () => {
    let calls = 0;
    let readDone = false;
    const key = await ProvingKey.load(zkeyPath, {
      pinned: true,
      onProgress: (_phase, done, total) => void (readDone = done === total),
      pinAfterReads: async () => {
        calls++;
        assert.equal(readDone, true, 'pinAfterReads ran before the last section was read');
      },
    });
    try {
      assert.equal(calls, 1);
      assert.equal(key.bytes, ProvingKey.inspect(zkeyPath).bytes);
    } finally {
      key.release();
    }
  });
});
