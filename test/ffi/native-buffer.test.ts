// NativeBuffer.allocMapped / pinAsync, the memory a key's sections live in: a fresh mapping that
// holds what is written to it, 2 MiB-aligned when it is big (transparent huge pages), pinned in place
// (a no-op on the CPU core, but the buffer says pinned as alloc({ pinned }) does), freed once; bad
// sizes, a pin of anything else and an impossible size are one-line errors, not crashes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { MAX_NATIVE_BUFFER_BYTES, NativeBuffer } from '../../src/ffi/native-buffer.js';

const code = (c: string) => (e: unknown) => e instanceof CuzkError && e.code === c;

describe('NativeBuffer mapped memory', () => {
  it('holds its bytes, big ones on a 2 MiB boundary; pinAsync marks it pinned; release is once', async () => {
    for (const bytes of [100, (5 << 20) + 3]) {
      const b = NativeBuffer.allocMapped(bytes);
      assert.equal(b.byteLength, bytes);
      assert.equal(b.mapped, true);
      assert.equal(b.pinned, false);
      if (bytes > 2 << 20) assert.equal(b.pointer % BigInt(2 << 20), 0n, 'huge-page aligned');
      b.bytes.fill(0xa5);
      b.bytes[bytes - 1] = 7;
      await b.pinAsync();
      assert.equal(b.pinned, true);
      await b.pinAsync(); // idempotent
      assert.equal(b.bytes[0], 0xa5);
      assert.equal(b.bytes[bytes - 1], 7);
      b.release();
      assert.equal(b.released, true);
      b.release();
      assert.throws(() => b.bytes, code('E_INTERNAL'));
    }
  });

  it('refuses bad sizes, pinning plain memory, and sizes past what one buffer can view', async () => {
    for (const n of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) assert.throws(() => NativeBuffer.allocMapped(n), code('E_INVALID_ARG'), String(n));
    const plain = NativeBuffer.alloc(64);
    try {
      await assert.rejects(plain.pinAsync(), code('E_INVALID_ARG'));
    } finally {
      plain.release();
    }
    // past what one Uint8Array can view (koffi aborted the process on such a view, seen with an 8.35 GiB
    // pinned buffer): refused before anything is allocated, in one line, by each allocator
    const oneLine = (e: unknown) => code('E_INVALID_ARG')(e) && /more than one buffer can hold/.test((e as Error).message) && !(e as Error).message.includes('\n');
    for (const n of [MAX_NATIVE_BUFFER_BYTES + 1, 2 ** 33, 2 ** 52]) {
      assert.throws(() => NativeBuffer.allocMapped(n), oneLine, String(n));
      assert.throws(() => NativeBuffer.alloc(n, { pinned: true }), oneLine, String(n));
      await assert.rejects(NativeBuffer.allocAsync(n, { pinned: true }), oneLine, String(n));
    }
  });
});
