// snarkjs as the peer verifier in tests, and the cleanup its worker threads need.
import * as snarkjs from 'snarkjs';

interface Snarkjs {
  groth16: {
    verify(vk: unknown, pub: unknown, proof: unknown, logger?: unknown): Promise<boolean>;
    prove(zkey: string, wtns: string): Promise<{ proof: unknown; publicSignals: string[] }>;
  };
  curves: { getCurveFromName(name: string): Promise<{ terminate(): Promise<void> }> };
}

export const sj = snarkjs as unknown as Snarkjs;

export function snarkjsVerify(vk: unknown, pub: unknown, proof: unknown): Promise<boolean> {
  return sj.groth16.verify(vk, pub, proof);
}

/** Call in after(): ffjavascript keeps worker threads per curve alive otherwise. */
export async function terminateSnarkjs(): Promise<void> {
  for (const name of ['bn128', 'bls12381']) {
    const g = globalThis as Record<string, unknown>;
    const key = name === 'bn128' ? 'curve_bn128' : 'curve_bls12381';
    if (g[key]) await (await sj.curves.getCurveFromName(name)).terminate();
  }
}
