// NativeBuffer.allocMapped / pinAsync, the memory a key's sections live in: a fresh mapping that
// holds what is written to it, 2 MiB-aligned when it is big (transparent huge pages), pinned in place
// (a no-op on the CPU core, but the buffer says pinned as alloc({ pinned }) does), freed once; bad
// sizes and a pin of anything else are one-line errors, not crashes; a buffer past what one Uint8Array
// can view (4 GiB) is allocated all the same and read through windows anywhere in it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { MAX_VIEW_BYTES, NativeBuffer } from '../../src/ffi/native-buffer.js';

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

  it('refuses bad sizes and pinning plain memory', async () => {
    for (const n of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) assert.throws(() => NativeBuffer.allocMapped(n), code('E_INVALID_ARG'), String(n));
    const plain = NativeBuffer.alloc(64);
    try {
      await assert.rejects(plain.pinAsync(), code('E_INVALID_ARG'));
    } finally {
      plain.release();
    }
  });

  it('maps more than 4 GiB and reads and writes it through windows past the 4 GiB mark', async () => {
    // untouched pages of the mapping cost nothing: only the two windows below are faulted in
    const n = MAX_VIEW_BYTES + 3 * 4096 + 5;
    const b = NativeBuffer.allocMapped(n);
    try {
      assert.equal(b.byteLength, n);
      const far = b.view(MAX_VIEW_BYTES + 4096, 2 * 4096 + 5);
      far.fill(0x5a);
      far[far.length - 1] = 9;
      const again = b.view(n - 6, 6);
      assert.deepEqual([...again], [0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 9]);
      const near = b.view(0, 16);
      assert.deepEqual([...near], new Array(16).fill(0), 'a fresh mapping is zeros, and the far writes did not land here');
      await b.pinAsync();
      assert.equal(b.view(n - 1, 1)[0], 9);
      // one Uint8Array cannot view it all (koffi would abort the process): refused in one line, not a crash
      const oneLine = (c: string, re: RegExp) => (e: unknown) => code(c)(e) && re.test((e as Error).message) && !(e as Error).message.includes('\n');
      assert.throws(() => b.bytes, oneLine('E_INTERNAL', /more than one Uint8Array can view .*view\(offset, length\)/));
      assert.throws(() => b.view(0, MAX_VIEW_BYTES + 1), oneLine('E_INVALID_ARG', /more than one Uint8Array can view/));
      assert.throws(() => b.view(n - 2, 3), oneLine('E_INVALID_ARG', /outside its/));
    } finally {
      b.release();
    }
  });
});
