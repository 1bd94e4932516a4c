// NativeKey: a proving key inside the native core, built from NativeBuffers that hold the zkey's
// sections. The key borrows those buffers: they are released only after destroy().
import { CuzkError } from '../errors.js';
import { loadCore } from './load.js';
import { callAsync, CURVE_ID, sizesOf, type CurveName } from './native.js';
import type { NativeBuffer } from './native-buffer.js';
import { check, newErrorSlot } from './status.js';

export interface NativeKeyParts {
  curve: CurveName;
  nVars: number;
  nPublic: number;
  domainSize: number;
  nCoefs: number;
  /** alpha1 ‖ beta1 ‖ beta2 ‖ delta1 ‖ delta2, LEM */
  header: NativeBuffer;
  /** section 4 records, without the leading u32 count */
  coefs: NativeBuffer;
  pointsA: NativeBuffer;
  pointsB1: NativeBuffer;
  pointsB2: NativeBuffer;
  pointsC: NativeBuffer;
  pointsH: NativeBuffer;
}

/** What one phase of a proof did (cuzk_prove_stats): ms per phase, GPU busy time, bytes uploaded. */
export interface ProveStats {
  synthMs: number;
  h2dMs: number;
  nttMs: number;
  msmMs: number;
  d2hMs: number;
  finishMs: number;
  totalMs: number;
  kernelMs: number;
  h2dBytes: number;
  /** GPU ordinal, -1 = CPU core */
  device: number;
  /** GPU: ms waiting for the device's compute region (another proof's kernels) */
  waitMs: number;
}

function toStats(o: Record<string, unknown>): ProveStats {
  const n = (k: string) => Number(o[k] ?? 0);
  return {
    synthMs: n('synth_ms'), h2dMs: n('h2d_ms'), nttMs: n('ntt_ms'), msmMs: n('msm_ms'), d2hMs: n('d2h_ms'),
    finishMs: n('finish_ms'), totalMs: n('total_ms'), kernelMs: n('kernel_ms'), h2dBytes: n('h2d_bytes'), device: n('device'), waitMs: n('wait_ms'),
  };
}

/** Where phase 1 writes A·w ‖ B·w: a Uint8Array (a pooled buffer), or a NativeBuffer of any size
 * (passed by address: past a 2^26 domain A‖B is more than one Uint8Array holds). */
export type AbBuffer = Uint8Array | NativeBuffer;

const abAddress = (ab: AbBuffer): Uint8Array | bigint => (ab instanceof Uint8Array ? ab : ab.pointer);

export class NativeKey {
  #handle: unknown;
  readonly parts: NativeKeyParts;

  private constructor(handle: unknown, parts: NativeKeyParts) {
    this.#handle = handle;
    this.parts = parts;
  }

  /**
   * Builds the native key over `parts` (which it borrows until destroy()): checks each buffer's size,
   * then cuzk_key_create (the coefficient plan: one threaded pass over section 4) on a koffi worker
   * thread, so a big key's plan does not hold the event loop.
   */
  static async create(parts: NativeKeyParts): Promise<NativeKey> {
    const z = sizesOf(parts.curve);
    const { nVars, nPublic, domainSize, nCoefs } = parts;
    const expect: [NativeBuffer, number, string][] = [
      [parts.header, 3 * z.g1 + 2 * z.g2, 'header points'],
      [parts.coefs, nCoefs * (12 + z.n8r), 'coefficients'],
      [parts.pointsA, nVars * z.g1, 'points A'],
      [parts.pointsB1, nVars * z.g1, 'points B1'],
      [parts.pointsB2, nVars * z.g2, 'points B2'],
      [parts.pointsC, (nVars - nPublic - 1) * z.g1, 'points C'],
      [parts.pointsH, domainSize * z.g1, 'points H'],
    ];
    for (const [buf, bytes, what] of expect) {
      if (buf.byteLength < bytes) throw new CuzkError('E_INVALID_ARG', `NativeKey: ${what} buffer holds ${buf.byteLength} bytes, needs ${bytes}`);
    }
    const h = parts.header;
    const desc = {
      curve: CURVE_ID[parts.curve],
      n_vars: nVars,
      n_public: nPublic,
      domain_size: domainSize,
      n_coefs: nCoefs,
      alpha1: h.pointerAt(0),
      beta1: h.pointerAt(z.g1),
      beta2: h.pointerAt(2 * z.g1),
      delta1: h.pointerAt(2 * z.g1 + z.g2),
      delta2: h.pointerAt(3 * z.g1 + z.g2),
      coefs: parts.coefs.pointer,
      points_a: parts.pointsA.pointer,
      points_b1: parts.pointsB1.pointer,
      points_b2: parts.pointsB2.pointer,
      points_c: parts.pointsC.pointer,
      points_h: parts.pointsH.pointer,
    };
    const out: unknown[] = [null];
    await callAsync('cuzk_key_create', (slot, cb) => loadCore().abi.key_create.async(desc, out, slot, cb));
    return new NativeKey(out[0], parts);
  }

  get destroyed(): boolean {
    return this.#handle === null;
  }

  /** Bytes of A ‖ B that synthesize() writes: 2 × domainSize × 32. */
  get abBytes(): number {
    return 2 * this.parts.domainSize * 32;
  }

  #live(): unknown {
    if (this.#handle === null) throw new CuzkError('E_INTERNAL', 'NativeKey used after destroy()');
    return this.#handle;
  }

  #checkWitness(witness: Uint8Array, ab: AbBuffer | null): void {
    if (witness.byteLength !== this.parts.nVars * 32) throw new CuzkError('E_INVALID_ARG', `prove: witness has ${witness.byteLength / 32} values, key expects ${this.parts.nVars}`);
    if (ab === null) return;
    if (ab.byteLength < this.abBytes) throw new CuzkError('E_INVALID_ARG', `prove: A‖B buffer holds ${ab.byteLength} bytes, needs ${this.abBytes}`);
    if (ab instanceof Uint8Array ? ab.byteOffset % 8 !== 0 : ab.pointer % 8n !== 0n) throw new CuzkError('E_INVALID_ARG', 'prove: A‖B buffer is not 8-byte aligned');
  }

  /** Phase 1 on the native CPU threads, for the CPU core's phase 2: A·w ‖ B·w into `ab`. */
  async synthesize(witness: Uint8Array, ab: AbBuffer, cancel?: Int32Array): Promise<ProveStats> {
    const h = this.#live();
    this.#checkWitness(witness, ab);
    const out: Record<string, unknown> = {};
    const abArg = abAddress(ab);
    await callAsync('cuzk_groth16_synthesize', (slot, cb) => loadCore().abi.groth16_synthesize.async(h, witness, abArg, cancel ?? null, out, slot, cb));
    return toStats(out);
  }

  /**
   * Phase 2: transforms, MSMs and randomisation. On the CPU core (`device` -1) from phase 1's `ab`; on
   * GPU `device` the whole proof from the witness, A·w and B·w synthesized there (`ab` null; its
   * `synthMs` is the device's synthesis time).
   */
  async proveAb(witness: Uint8Array, ab: AbBuffer | null, device: number, r: Uint8Array, s: Uint8Array, proofOut: Uint8Array, cancel?: Int32Array): Promise<ProveStats> {
    const h = this.#live();
    if (!Number.isInteger(device) || device < -1) throw new CuzkError('E_INVALID_ARG', `prove: bad device ${device}`);
    if ((device >= 0) !== (ab === null)) throw new CuzkError('E_INVALID_ARG', device >= 0 ? 'prove: a GPU synthesizes A and B itself: pass no A‖B buffer' : 'prove: the CPU core needs the A‖B buffer of phase 1');
    this.#checkWitness(witness, ab);
    const z = sizesOf(this.parts.curve);
    if (r.byteLength !== 32 || s.byteLength !== 32) throw new CuzkError('E_INVALID_ARG', 'prove: r and s must be 32 bytes');
    if (proofOut.byteLength < 2 * z.g1 + z.g2) throw new CuzkError('E_INVALID_ARG', 'prove: proof buffer too small');
    const out: Record<string, unknown> = {};
    const abArg = ab === null ? null : abAddress(ab);
    await callAsync('cuzk_groth16_prove_ab', (slot, cb) => loadCore().abi.groth16_prove_ab.async(h, witness, abArg, device, r, s, proofOut, cancel ?? null, out, slot, cb));
    return toStats(out);
  }

  /** Device bytes this key takes on a GPU: its points and its coefficients (cuzk_gpu_key_bytes). */
  get gpuBytes(): number {
    return Number(loadCore().abi.gpu_key_bytes(this.#live()));
  }

  /** Places the points and coefficients on GPU `device` (off the event loop); idempotent (a key
   * already there keeps its placement). `place` (default all resident): the CUZK_KEY_SET_* bits of
   * the sets read from host memory per proof, in chunks of `chunkPoints` points / `chunkRecords` records. */
  gpuUpload(device: number, place: { streamedBits: number; chunkPoints: number; chunkRecords: number } = { streamedBits: 0, chunkPoints: 0, chunkRecords: 0 }): Promise<void> {
    const h = this.#live();
    return callAsync('cuzk_gpu_key_upload', (slot, cb) =>
      loadCore().abi.gpu_key_upload.async(h, device, place.streamedBits, place.chunkPoints, place.chunkRecords, slot, cb));
  }

  gpuEvict(device: number): void {
    const slot = newErrorSlot();
    check(loadCore().abi.gpu_key_evict(this.#live(), device, slot), slot, 'cuzk_gpu_key_evict');
  }

  destroy(): void {
    if (this.#handle === null) return;
    const slot = newErrorSlot();
    check(loadCore().abi.key_destroy(this.#handle, slot), slot, 'cuzk_key_destroy');
    this.#handle = null;
  }
}
