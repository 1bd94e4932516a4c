// The G1/G2 generators snarkjs uses (ffjavascript bn128 / bls12381), as LEM point bytes for batchMul.
// BN254 from reference §2.6; BLS12-381 are the standard generators (IETF draft-irtf-cfrg-pairing-friendly-
// curves §4.2.1), the same as ffjavascript's and @noble/curves' (test/dev checks them against noble).

import type { CurveInfo, CurveName } from '../formats/curves.js';
import { encodeG1, encodeG2, type G1Affine, type G2Affine } from '../formats/lem.js';

const GENERATORS: Record<CurveName, { g1: G1Affine; g2: G2Affine }> = {
  bn128: {
    g1: { x: 1n, y: 2n },
    g2: {
      x: [
        10857046999023057135944570762232829481370756359578518086990519993285655852781n,
        11559732032986387107991004021392285783925812861821192530917403151452391805634n,
      ],
      y: [
        8495653923123431417604973247489272438418190587263600148770280649306958101930n,
        4082367875863433681332203403145435568316851327593401208105741076214120093531n,
      ],
    },
  },
  bls12381: {
    g1: {
      x: 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bbn,
      y: 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1n,
    },
    g2: {
      x: [
        0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8n,
        0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7en,
      ],
      y: [
        0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801n,
        0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79ben,
      ],
    },
  },
};

export function generatorsOf(curve: CurveName): { g1: G1Affine; g2: G2Affine } {
  return GENERATORS[curve];
}

/** LEM bytes of the generators (G1: 2·n8q, G2: 4·n8q). */
export function generatorBytes(curve: CurveInfo): { g1: Uint8Array; g2: Uint8Array } {
  const g = GENERATORS[curve.name];
  return { g1: encodeG1(g.g1, curve), g2: encodeG2(g.g2, curve) };
}
