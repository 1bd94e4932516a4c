// UploadBody (src/client/upload-body.ts): what every upload sends. Bytes go as views of the caller's
// array; a file is read in parts of its own, exactly its bytes at open, and a file that cannot be
// opened, is no regular file or shrinks while sent is one E_INVALID_ARG line naming it.
import assert from 'node:assert/strict';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { openUploadBody, sendBody, withUploadBodies, type UploadBody } from '../../src/client/upload-body.js';
import { useTmpDir } from '../helpers/tmp.js';

const tmp = useTmpDir('cuzk-upload-body-');

async function collect(body: UploadBody, partBytes: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const p of body.parts(partBytes)) out.push(p);
  return out;
}

const content = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + (i >> 8)) & 0xff);

async function failure(p: Promise<unknown>): Promise<CuzkError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
  return err;
}

describe('UploadBody', () => {
  it('bytes: parts are views of the caller\'s array, in order, none longer than asked', async () => {
    const w = content(10_000);
    const body = await openUploadBody(w, 'witness');
    assert.equal(body.bytes, 10_000);
    const parts = await collect(body, 4096);
    assert.deepEqual(parts.map((p) => p.length), [4096, 4096, 1808]);
    parts.forEach((p, i) => {
      assert.equal(p.buffer, w.buffer, `part ${i} is a copy`);
      assert.equal(p.byteOffset, w.byteOffset + i * 4096);
    });
  });

  it('a file: its size from fstat, exactly its bytes, each part a buffer of its own', async () => {
    const file = path.join(tmp(), 'w.wtns');
    const w = content(3 * 4096 + 17);
    writeFileSync(file, w);
    const body = await openUploadBody({ file }, 'witness');
    try {
      assert.equal(body.bytes, w.length);
      const parts = await collect(body, 4096);
      assert.deepEqual(parts.map((p) => p.length), [4096, 4096, 4096, 17]);
      assert.deepEqual(Buffer.concat(parts), Buffer.from(w));
      assert.equal(new Set(parts.map((p) => p.buffer)).size, parts.length, 'a part was read into a buffer still queued');
    } finally {
      await body.close();
    }
  });

  it('a missing file, a directory: one line naming it, before anything is read', async () => {
    const missing = path.join(tmp(), 'none.wtns');
    const e = await failure(openUploadBody({ file: missing }, 'witness'));
    assert.equal(e.code, 'E_INVALID_ARG');
    assert.equal(e.message, `${missing}: cannot read the witness (ENOENT)`);
    const dir = path.join(tmp(), 'dir.zkey');
    mkdirSync(dir);
    const d = await failure(openUploadBody({ file: dir }, 'key'));
    assert.equal(d.message, `${dir}: cannot read the key (not a regular file)`);
    // several sources: the second's failure comes before the first is used, and the first is closed
    let used = false;
    const both = await failure(withUploadBodies([content(10), { file: missing }], 'witness', async () => (used = true)));
    assert.equal(both.message, `${missing}: cannot read the witness (ENOENT)`);
    assert.equal(used, false);
  });

  it('a file that shrinks while sent fails naming it; closed, it reads no more', async () => {
    const file = path.join(tmp(), 'w.wtns');
    writeFileSync(file, content(10_000));
    const body = await openUploadBody({ file }, 'witness');
    const it = body.parts(4096);
    assert.equal((await it.next()).value?.length, 4096);
    truncateSync(file, 5000);
    const e = await failure((async () => {
      while (!(await it.next()).done);
    })());
    assert.equal(e.message, `${file}: cannot read the witness (it ended at 5000 of the 10000 bytes it had when opened)`);
    await body.close();
    const again = await openUploadBody({ file }, 'witness');
    await again.close();
    const closed = await failure(collect(again, 4096));
    assert.match(closed.message, /cannot read the witness \(closed at 0 of 5000 bytes while sent\)/);
  });

  it('sendBody writes every byte and ends, a file waiting while full; answered, it stops; a read failure goes to fail()', async () => {
    const file = path.join(tmp(), 'w.wtns');
    const w = content(64 * 1024 + 5);
    writeFileSync(file, w);
    for (const src of [w, { file }]) {
      const got: Buffer[] = [];
      let most = 0;
      const slow = new Writable({ highWaterMark: 1024, write(c: Buffer, _e, cb) {
        got.push(c);
        most = Math.max(most, slow.writableLength);
        setImmediate(cb);
      } });
      const finished = new Promise((r) => slow.on('finish', r));
      await withUploadBodies([src], 'witness', async ([b]) => {
        sendBody(slow, b!, 4096, () => false, (err) => assert.fail(String(err)));
        await finished;
      });
      assert.deepEqual(Buffer.concat(got), Buffer.from(w));
      // a file's next part is read only once the stream drains (a part or two held); the caller's bytes
      // are handed over at once (views of memory it holds anyway: no wait per part)
      if (ArrayBuffer.isView(src)) assert.ok(most > 4096, `${most} bytes queued at most: the bytes waited for drains`);
      else assert.ok(most <= 4096, `${most} bytes queued: a file part was read onto a full stream`);
    }
    // answered after the first part: nothing more is written, and the body is not ended
    const seen: number[] = [];
    const held = new Writable({ write(c: Buffer, _e, cb) {
      seen.push(c.length);
      cb();
    } });
    await withUploadBodies([w], 'witness', async ([b]) => {
      sendBody(held, b!, 4096, () => seen.length > 0, (err) => assert.fail(String(err)));
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    });
    assert.deepEqual(seen, [4096]);
    assert.equal(held.writableEnded, false);
    // a file gone short mid-body: fail() has the file's error, the stream is destroyed
    const short = await openUploadBody({ file }, 'witness');
    truncateSync(file, 100);
    const out = new Writable({ write: (_c, _e, cb) => cb() });
    const failed = await new Promise<unknown>((resolve) => sendBody(out, short, 4096, () => false, resolve));
    await short.close();
    assert.ok(failed instanceof CuzkError && /ended at 100 of the 65541 bytes/.test(failed.message), String(failed));
    assert.equal(out.destroyed, true);
  });
});
