// verification_key.json: built from zkey bytes with snarkjs's key order, parsed back strictly.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BN128 } from '../../src/formats/curves.js';
import { encodeG1, encodeG2 } from '../../src/formats/lem.js';
import { parseVkeyJson as parseFromProofModule } from '../../src/formats/proof-json.js';
import { parseVkeyJson, stringifyVkey, verificationKeyFromZkey, vkeyToJson, type Fp12 } from '../../src/formats/vkey-json.js';
import type { ZkeyHeader } from '../../src/formats/zkey.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

const AB12: Fp12 = [
  [[1n, 2n], [3n, 4n], [5n, 6n]],
  [[7n, 8n], [9n, 10n], [11n, BN128.q - 1n]],
];

function header(): ZkeyHeader {
  const g2 = (k: bigint) => encodeG2({ x: [k, k + 1n], y: [k + 2n, k + 3n] }, BN128);
  return {
    path: 'k.zkey', curve: 'bn128', n8q: 32, n8r: 32, q: BN128.q, r: BN128.r, nVars: 5, nPublic: 2, domainSize: 8, nCoefs: 0,
    alpha1: encodeG1({ x: 1n, y: 2n }, BN128), beta1: encodeG1(null, BN128), beta2: g2(10n), gamma2: g2(20n),
    delta1: encodeG1(null, BN128), delta2: g2(30n), sections: {} as ZkeyHeader['sections'],
  };
}

const IC = new Uint8Array([...encodeG1({ x: 5n, y: 6n }, BN128), ...encodeG1(null, BN128), ...encodeG1({ x: 7n, y: 8n }, BN128)]);

describe('vkey-json', () => {
  it('builds snarkjs verification_key.json from zkey bytes', () => {
    const vk = verificationKeyFromZkey(header(), IC);
    const json = vkeyToJson(vk, AB12);
    assert.deepEqual(Object.keys(json), ['protocol', 'curve', 'nPublic', 'vk_alpha_1', 'vk_beta_2', 'vk_gamma_2', 'vk_delta_2', 'vk_alphabeta_12', 'IC']);
    assert.deepEqual(json.vk_alpha_1, ['1', '2', '1']);
    assert.deepEqual(json.vk_gamma_2, [['20', '21'], ['22', '23'], ['1', '0']]);
    assert.deepEqual(json.IC, [['5', '6', '1'], ['0', '1', '0'], ['7', '8', '1']]);
    assert.deepEqual(json.vk_alphabeta_12[1][2], ['11', (BN128.q - 1n).toString()]);
    const back = parseVkeyJson(stringifyVkey(vk, AB12));
    assert.deepEqual(back, { ...vk, alphabeta12: AB12 });
    assert.deepEqual(parseFromProofModule(json), back);
    throwsCode(() => verificationKeyFromZkey(header(), IC.subarray(64)), 'E_INVALID_ARG', 'k.zkey: IC needs 192 bytes');
    throwsCode(() => vkeyToJson({ ...vk, IC: [] }, AB12), 'E_INVALID_ARG', 'IC has 0 points');
  });

  it('accepts a key without vk_alphabeta_12 and rejects malformed fields', () => {
    const json = vkeyToJson(verificationKeyFromZkey(header(), IC), AB12);
    const bad = (edit: (j: any) => void) => {
      const j = JSON.parse(JSON.stringify(json));
      edit(j);
      return () => parseVkeyJson(j, { file: 'vk.json' });
    };
    const { vk_alphabeta_12: _ab, ...noAb } = json;
    assert.equal(parseVkeyJson(noAb).alphabeta12, undefined);
    throwsCode(bad((j) => j.IC.pop()), 'E_FORMAT', 'vk.json: IC has 2 elements, expected 3');
    throwsCode(bad((j) => (j.nPublic = '2')), 'E_FORMAT', 'vk.json: nPublic is "2", expected a non-negative integer');
    throwsCode(bad((j) => (j.nPublic = 1.5)), 'E_FORMAT', 'nPublic is 1.5');
    throwsCode(bad((j) => (j.vk_alphabeta_12[1][2][1] = BN128.q.toString())), 'E_FORMAT', 'vk_alphabeta_12[1][2][1] is not below');
    throwsCode(bad((j) => j.vk_alphabeta_12[0].pop()), 'E_FORMAT', 'vk_alphabeta_12[0] has 2 elements, expected 3');
    throwsCode(bad((j) => (j.vk_delta_2[0][1] = 'x')), 'E_FORMAT', 'vk.json: vk_delta_2[0][1] is not a decimal string');
    throwsCode(bad((j) => (j.IC[2][2] = '3')), 'E_FORMAT', 'IC[2][2] is not "1"');
    throwsCode(bad((j) => (j.curve = 'secp256k1')), 'E_FORMAT', 'curve is "secp256k1"');
    throwsCode(bad((j) => delete j.curve), 'E_FORMAT', 'vk.json: curve is missing');
    throwsCode(bad((j) => delete j.protocol), 'E_FORMAT', 'vk.json: protocol is missing');
  });
});
