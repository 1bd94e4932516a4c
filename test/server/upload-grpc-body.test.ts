// The body reader of UploadWitness (src/server/transport/upload-grpc-body.ts): over HTTP/2 it reads the
// stream under the compat request, never the request itself (that second Readable was most of the
// daemon's main-thread cost per byte over gRPC); the pieces it hands on are the stream's own bytes;
// it pauses its source while QUEUE_BYTES wait and resumes as they are parsed; a source that closes
// before its end is one E_INVALID_ARG; detach() leaves nothing queued or listened to.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { BodyReader, QUEUE_BYTES, requestBody } from '../../src/server/transport/upload-grpc-body.js';

const bytes = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** Everything the reader gives, as one buffer, and how many pieces it came in. */
async function readAll(r: BodyReader, n: number): Promise<{ body: Buffer; pieces: Uint8Array[] }> {
  const pieces: Uint8Array[] = [];
  await r.pieces(n, async (p) => void pieces.push(p));
  return { body: Buffer.concat(pieces), pieces };
}

/** Turns of the event loop until `cond` holds (at most `max`): no clock, only queued work. */
async function turnsUntil(cond: () => boolean, max = 1000): Promise<boolean> {
  for (let i = 0; i < max && !cond(); i++) await new Promise((r) => setImmediate(r));
  return cond();
}

describe('UploadWitness body reader', () => {
  it('over HTTP/2 reads the stream, never the compat request, and hands on the bytes as they came', async () => {
    const sent = bytes(3 << 20, 7);
    let seen: { body: Buffer; didRead: boolean; ended: boolean } | undefined;
    const server = http2.createServer({ settings: { initialWindowSize: 8 << 20 } }, (req, res) => {
      const r = requestBody(req);
      void readAll(r, sent.length).then(async ({ body }) => {
        const ended = !(await r.more());
        r.detach();
        seen = { body, didRead: req.readableDidRead, ended };
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const s = session.request({ ':method': 'POST', ':path': '/' });
      for (let o = 0; o < sent.length; o += 100_000) s.write(sent.subarray(o, o + 100_000));
      s.end();
      s.resume();
      await new Promise((r) => s.once('close', r));
    } finally {
      session.close();
      server.close();
    }
    assert.ok(seen, 'the server read the body');
    assert.ok(Buffer.from(sent).equals(seen.body), 'byte-exact');
    assert.equal(seen.ended, true);
    assert.equal(seen.didRead, false, 'the compat request was read: every DATA frame went through a second Readable');
  });

  it('hands on views of what the source delivered, not copies', async () => {
    const src = new PassThrough();
    const r = new BodyReader(src);
    const parts = [bytes(5000, 1), bytes(70_000, 2)];
    for (const p of parts) src.write(p);
    src.end();
    const { pieces } = await readAll(r, 75_000);
    assert.deepEqual(pieces.map((p) => p.length), [5000, 70_000]);
    // a PassThrough hands on the written buffers themselves: the reader must not have copied them
    assert.ok(pieces.every((p, i) => p.buffer === parts[i]!.buffer), 'a piece was copied');
  });

  it('pauses its source while QUEUE_BYTES wait unread, and resumes it as they are parsed', async () => {
    const src = new PassThrough({ highWaterMark: 64 << 10 });
    const r = new BodyReader(src);
    const piece = 64 << 10;
    const total = QUEUE_BYTES + 4 * piece; // what is left after QUEUE_BYTES are parsed cannot pause it again
    let written = 0;
    const pump = () => {
      while (written < total && src.write(bytes(piece, written))) written += piece;
    };
    src.on('drain', () => {
      written += piece;
      pump();
    });
    pump();
    assert.equal(await turnsUntil(() => src.isPaused()), true, 'never paused: a slow reader would queue the whole body');
    await r.pieces(QUEUE_BYTES, async () => {});
    assert.equal(src.isPaused(), false, 'not resumed once the queue was parsed');
    r.detach();
    src.destroy();
  });

  it('a source that closes before its end: one E_INVALID_ARG, after the bytes that did come', async () => {
    const src = new PassThrough();
    const r = new BodyReader(src);
    src.write(bytes(1000));
    await turnsUntil(() => src.readableLength === 0);
    src.destroy();
    const got: number[] = [];
    await assert.rejects(r.pieces(2000, async (p) => void got.push(p.length)), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_INVALID_ARG');
      assert.match(e.message, /^UploadWitness: the stream closed before its body ended/);
      assert.doesNotMatch(e.message, /\n/);
      return true;
    });
    assert.deepEqual(got, [1000]);
  });

  it('detach(): no listener left on the source, nothing queued, the source paused', async () => {
    const src = new PassThrough();
    const r = new BodyReader(src);
    src.write(bytes(10_000));
    await turnsUntil(() => src.readableLength === 0);
    r.detach();
    assert.equal(src.listenerCount('data'), 0);
    assert.equal(src.isPaused(), true);
    src.end();
    assert.equal(await r.more(), false, 'queued bytes were kept after detach');
  });
});
