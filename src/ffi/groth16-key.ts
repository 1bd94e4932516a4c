// NativeKey: a proving key inside the native core, built from NativeBuffers that hold the zkey's
// sections. The key borrows those buffers: they are released only after destroy().
import { CuzkError } from '../errors.js';
import { loadCore } from './load.js';
import { CURVE_ID, sizesOf, type CurveName } from './native.js';
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

export class NativeKey {
  #handle: unknown;
  readonly parts: NativeKeyParts;

  constructor(parts: NativeKeyParts) {
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
    const slot = newErrorSlot();
    const stack = new Error();
    check(loadCore().abi.key_create(desc, out, slot), slot, 'cuzk_key_create', stack);
    this.#handle = out[0];
    this.parts = parts;
  }

  get destroyed(): boolean {
    return this.#handle === null;
  }

  /**
   * One proof on a native worker thread. witness: nVars × 32-byte standard scalars; r, s: 32 bytes;
   * proofOut receives A ‖ B ‖ C (LEM). `cancel[0] = 1` stops it at the next phase (E_CANCELLED).
   */
  prove(witness: Uint8Array, r: Uint8Array, s: Uint8Array, proofOut: Uint8Array, cancel?: Int32Array): Promise<void> {
    if (this.#handle === null) throw new CuzkError('E_INTERNAL', 'NativeKey used after destroy()');
    const z = sizesOf(this.parts.curve);
    if (witness.byteLength !== this.parts.nVars * 32) throw new CuzkError('E_INVALID_ARG', `prove: witness has ${witness.byteLength / 32} values, key expects ${this.parts.nVars}`);
    if (r.byteLength !== 32 || s.byteLength !== 32) throw new CuzkError('E_INVALID_ARG', 'prove: r and s must be 32 bytes');
    if (proofOut.byteLength < 2 * z.g1 + z.g2) throw new CuzkError('E_INVALID_ARG', 'prove: proof buffer too small');
    const stack = new Error();
    const slot = newErrorSlot();
    const flag = cancel ?? null;
    return new Promise((resolve, reject) => {
      loadCore().abi.groth16_prove.async(this.#handle, witness, r, s, proofOut, flag, slot, (err: unknown, status: number) => {
        if (err) return reject(err);
        try {
          check(status, slot, 'cuzk_groth16_prove', stack);
          resolve();
        } catch (e) {
          reject(e);
        }
      });
    });
  }

  destroy(): void {
    if (this.#handle === null) return;
    const slot = newErrorSlot();
    check(loadCore().abi.key_destroy(this.#handle, slot), slot, 'cuzk_key_destroy');
    this.#handle = null;
  }
}
