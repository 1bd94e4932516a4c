// ProvingKey: a zkey loaded once into native-owned memory (pinned in the CUDA build) and turned
// into a native key that any number of proofs reuse. Each big section is read from the file straight
// into its native buffer, so the process never holds two copies of a key (the file is not slurped).
import { CuzkError } from '../errors.js';
import { curveByName, type CurveInfo } from '../formats/curves.js';
import type { VerificationKey } from '../formats/vkey-json.js';
import { verificationKeyFromZkey } from '../formats/vkey-json.js';
import { ZkeyFile, type ZkeyBigSection, type ZkeyHeader } from '../formats/zkey.js';
import { NativeKey } from '../ffi/groth16-key.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import { checkSectionPoints, checkVerificationKeyPoints } from './key-points.js';
import { encodeVerificationKey } from './verifier.js';

export type ProgressFn = (phase: string, done: number, total: number) => void;

const NATIVE_SECTIONS: readonly ZkeyBigSection[] = ['coefs', 'A', 'B1', 'B2', 'C', 'H'];

export class ProvingKey {
  readonly header: ZkeyHeader;
  readonly curve: CurveInfo;
  readonly vk: VerificationKey;
  /** vk in the byte layout cuzk_groth16_verify takes, built once. */
  readonly vkBytes: Uint8Array;
  /** Native bytes held by this key. */
  readonly bytes: number;
  readonly native: NativeKey;
  readonly #buffers: NativeBuffer[];

  private constructor(header: ZkeyHeader, vk: VerificationKey, native: NativeKey, buffers: NativeBuffer[]) {
    this.header = header;
    this.curve = curveByName(header.curve)!;
    this.vk = vk;
    this.vkBytes = encodeVerificationKey(vk);
    this.native = native;
    this.#buffers = buffers;
    this.bytes = buffers.reduce((s, b) => s + b.byteLength, 0);
  }

  /** Header of `zkeyPath` and the native bytes load() would hold, without reading the big sections. */
  static inspect(zkeyPath: string): { header: ZkeyHeader; bytes: number } {
    const file = ZkeyFile.open(zkeyPath);
    try {
      const h = file.header;
      const bytes = 3 * h.alpha1.length + 2 * h.beta2.length + NATIVE_SECTIONS.reduce((s, n) => s + Math.max(64, file.sectionBytes(n)), 0);
      return { header: h, bytes };
    } finally {
      file.close();
    }
  }

  /**
   * Reads and validates `zkeyPath`, every point included (key-points.ts: on its curve, the
   * verification key's in their subgroups); throws FormatError (naming the file and the section) on
   * any defect, the first in file order when there are several. Every section is read at once, each
   * straight into its native buffer (positional reads on libuv's threads), and each is checked as
   * soon as it is in, so reads, the coefficient pass and the point checks can overlap where cores are
   * free (on 2 busy cores a 2^16 BN254 key still takes ~48 ms from a fresh process, most of it page
   * faults of the fresh buffers: bench/RESULTS.md).
   */
  static async load(zkeyPath: string, opts: { pinned?: boolean; onProgress?: ProgressFn } = {}): Promise<ProvingKey> {
    const file = ZkeyFile.open(zkeyPath);
    const buffers: NativeBuffer[] = [];
    // each step settles once its bytes are read and checked; awaited in file order below
    const steps: Promise<unknown>[] = [];
    try {
      const h = file.header;
      const header = NativeBuffer.alloc(3 * h.alpha1.length + 2 * h.beta2.length);
      buffers.push(header);
      let off = 0;
      for (const p of [h.alpha1, h.beta1, h.beta2, h.delta1, h.delta2]) {
        header.bytes.set(p, off);
        off += p.length;
      }
      const total = NATIVE_SECTIONS.reduce((s, n) => s + file.sectionBytes(n), 0);
      let done = 0;
      const sections = new Map<ZkeyBigSection, NativeBuffer>();
      // every buffer before the first read: an allocation (mmap) waits for the kernel's address-space
      // lock while reader threads fault pages in under it (3-7 ms stalls of the event loop, measured)
      for (const name of NATIVE_SECTIONS) {
        // a zero-length section (e.g. no private wires) still needs a valid pointer
        const buf = NativeBuffer.alloc(Math.max(64, file.sectionBytes(name)), { pinned: opts.pinned });
        buffers.push(buf);
        sections.set(name, buf);
      }
      const vk = file.readAsync('IC').then(async (ic) => {
        await checkVerificationKeyPoints(h, ic);
        return verificationKeyFromZkey(h, ic);
      });
      steps.push(vk);
      for (const [name, buf] of sections) {
        steps.push(
          file.readAsync(name, buf.bytes).then(() => {
            done += file.sectionBytes(name);
            opts.onProgress?.('load key', done, total);
            if (name !== 'coefs') return checkSectionPoints(h, name, buf.bytes, file.sectionBytes(name));
          }),
        );
      }
      for (const step of steps) step.catch(() => {}); // awaited below, in file order
      for (const step of steps) await step;
      const native = new NativeKey({
        curve: h.curve,
        nVars: h.nVars,
        nPublic: h.nPublic,
        domainSize: h.domainSize,
        nCoefs: h.nCoefs,
        header,
        coefs: sections.get('coefs')!,
        pointsA: sections.get('A')!,
        pointsB1: sections.get('B1')!,
        pointsB2: sections.get('B2')!,
        pointsC: sections.get('C')!,
        pointsH: sections.get('H')!,
      });
      return new ProvingKey(h, await vk, native, buffers);
    } catch (err) {
      await Promise.allSettled(steps); // a read or a check still running writes or reads these buffers
      for (const b of buffers) b.release();
      throw err;
    } finally {
      file.close();
    }
  }

  get released(): boolean {
    return this.native.destroyed;
  }

  /** Destroys the native key, then frees the buffers it borrowed. Idempotent. */
  release(): void {
    if (this.native.destroyed) return;
    this.native.destroy();
    for (const b of this.#buffers) b.release();
  }

  assertLive(): void {
    if (this.native.destroyed) throw new CuzkError('E_INTERNAL', `proving key ${this.header.path} used after release()`);
  }
}
