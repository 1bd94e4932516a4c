// ProvingKey: a zkey loaded once into native-owned memory (pinned in the CUDA build) and turned
// into a native key that any number of proofs reuse. Each big section is read from the file straight
// into its native buffer, so the process never holds two copies of a key (the file is not slurped).
// The file is read, never mapped: a key file truncated under a mapping would kill the process
// (SIGBUS) at its next touch, and its sections are not 8-byte aligned for the native core anyway.
import { CuzkError } from '../errors.js';
import { curveByName, type CurveInfo } from '../formats/curves.js';
import type { VerificationKey } from '../formats/vkey-json.js';
import { verificationKeyFromZkey } from '../formats/vkey-json.js';
import { ZkeyFile, type ZkeyHeader } from '../formats/zkey.js';
import { NativeKey } from '../ffi/groth16-key.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import { checkVerificationKeyPoints, readKeySections, type NativeSection } from './key-points.js';
import { encodeVerificationKey } from './verifier.js';

export type ProgressFn = (phase: string, done: number, total: number) => void;
export interface KeyLoadTimings {
  allocMs: number;
  readMs: number;
  pinMs: number;
  planMs: number;
  totalMs: number;
}

const NATIVE_SECTIONS: readonly NativeSection[] = ['coefs', 'A', 'B1', 'B2', 'C', 'H'];

export class ProvingKey {
  readonly header: ZkeyHeader;
  readonly curve: CurveInfo;
  readonly vk: VerificationKey;
  /** vk in the byte layout cuzk_groth16_verify takes, built once. */
  readonly vkBytes: Uint8Array;
  /** Native bytes held by this key. */
  readonly bytes: number;
  readonly native: NativeKey;
  /** Where load() spent its time (ms): opening and mapping, reading with the checks, pinning, the plan. */
  readonly timings: KeyLoadTimings;
  readonly #buffers: NativeBuffer[];

  private constructor(header: ZkeyHeader, vk: VerificationKey, native: NativeKey, buffers: NativeBuffer[], timings: KeyLoadTimings) {
    this.header = header;
    this.curve = curveByName(header.curve)!;
    this.vk = vk;
    this.vkBytes = encodeVerificationKey(vk);
    this.native = native;
    this.#buffers = buffers;
    this.timings = timings;
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
   * any defect, the first in file order when there are several. The big sections go straight from
   * the file into fresh mappings (`NativeBuffer.allocMapped`), a native pass each (`readKeySections`:
   * chunks on every core, each checked as it lands); with `pinned` each is page-locked in place as
   * soon as it is in; then the coefficient plan is built; none of it on the event loop. `timings`
   * says where the time went (pinMs: the pins' wait after the last read).
   */
  /** `pinned`: each section pinned once read (on a worker thread, beside the next read), or with
   * `pinAfterReads` all of them once every read is done and that promise has settled. */
  static async load(zkeyPath: string, opts: { pinned?: boolean; pinAfterReads?: () => Promise<void>; onProgress?: ProgressFn } = {}): Promise<ProvingKey> {
    const t0 = performance.now();
    const file = ZkeyFile.open(zkeyPath);
    const buffers: NativeBuffer[] = [];
    // each step settles once its bytes are read and checked; awaited in file order below
    const steps: Promise<unknown>[] = [];
    const pins: Promise<void>[] = [];
    try {
      const h = file.header;
      const header = NativeBuffer.alloc(3 * h.alpha1.length + 2 * h.beta2.length);
      buffers.push(header);
      let off = 0;
      for (const p of [h.alpha1, h.beta1, h.beta2, h.delta1, h.delta2]) {
        header.bytes.set(p, off);
        off += p.length;
      }
      const sections = new Map<NativeSection, NativeBuffer>();
      for (const name of NATIVE_SECTIONS) {
        // a zero-length section (e.g. no private wires) still needs a valid pointer
        const buf = NativeBuffer.allocMapped(Math.max(64, file.sectionBytes(name)));
        buffers.push(buf);
        sections.set(name, buf);
      }
      const t1 = performance.now();
      const vk = file.readAsync('IC').then(async (ic) => {
        await checkVerificationKeyPoints(h, ic);
        return verificationKeyFromZkey(h, ic);
      });
      // one section at a time in file order (each pass on every core), so the first bad one stops the
      // rest, and a section is pinned (on a worker thread) while the next is read
      const total = NATIVE_SECTIONS.reduce((n, name) => n + file.sectionBytes(name), 0);
      let vkBad = false; // a bad verification key (section 3, before 4-9 in snarkjs files) is the defect named: stop reading
      vk.catch(() => void (vkBad = true));
      const read = (async () => {
        let done = 0;
        for (const name of [...NATIVE_SECTIONS].sort((a, b) => file.sectionPosition(a) - file.sectionPosition(b))) {
          if (vkBad) return;
          const buf = sections.get(name)!;
          await readKeySections(file, new Map([[name, buf]]), { fresh: true }); // allocMapped above, not touched yet
          done += file.sectionBytes(name);
          opts.onProgress?.('load key', done, total);
          if (!opts.pinned || opts.pinAfterReads) continue;
          const pin = buf.pinAsync();
          pin.catch(() => {}); // awaited after the reads
          pins.push(pin);
        }
        if (opts.pinned && opts.pinAfterReads && !vkBad) {
          await opts.pinAfterReads();
          for (const buf of sections.values()) {
            const pin = buf.pinAsync();
            pin.catch(() => {});
            pins.push(pin);
          }
        }
      })();
      steps.push(vk, read);
      for (const step of steps) step.catch(() => {}); // awaited below, in file order
      for (const step of steps) await step;
      const t2 = performance.now();
      await Promise.all(pins);
      const t3 = performance.now();
      const native = await NativeKey.create({
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
      const t4 = performance.now();
      const timings = { allocMs: t1 - t0, readMs: t2 - t1, pinMs: t3 - t2, planMs: t4 - t3, totalMs: t4 - t0 };
      return new ProvingKey(h, await vk, native, buffers, timings);
    } catch (err) {
      await Promise.allSettled(steps); // a read, a check or a pin still running uses these buffers
      await Promise.allSettled(pins);
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
