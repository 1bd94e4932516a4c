// proof.json / public.json: snarkjs's exact output shape and strict parsing, one test per kind of deviation.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BLS12381, BN128 } from '../../src/formats/curves.js';
import {
  parseProofJson, parsePublicJson, proofToJson, publicToJson, stringifyProof, stringifyPublic, type Groth16Proof,
} from '../../src/formats/proof-json.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

const PROOF: Groth16Proof = {
  curve: 'bn128',
  a: { x: 1n, y: 2n },
  b: { x: [3n, 4n], y: [5n, BN128.q - 1n] },
  c: { x: 7n, y: 8n },
};

describe('proof-json', () => {
  it('writes snarkjs key order, G2 as [c0, c1] and z = 1', () => {
    const json = proofToJson(PROOF);
    assert.deepEqual(Object.keys(json), ['pi_a', 'pi_b', 'pi_c', 'protocol', 'curve']);
    assert.deepEqual(json, {
      pi_a: ['1', '2', '1'],
      pi_b: [['3', '4'], ['5', (BN128.q - 1n).toString()], ['1', '0']],
      pi_c: ['7', '8', '1'],
      protocol: 'groth16',
      curve: 'bn128',
    });
    assert.equal(stringifyProof(PROOF), JSON.stringify(json, null, 1));
    assert.deepEqual(parseProofJson(stringifyProof(PROOF)), PROOF);
  });

  it('writes and accepts the point at infinity as snarkjs does', () => {
    const inf: Groth16Proof = { curve: 'bls12381', a: null, b: null, c: { x: BLS12381.q - 1n, y: 0n } };
    const json = proofToJson(inf);
    assert.deepEqual(json.pi_a, ['0', '1', '0']);
    assert.deepEqual(json.pi_b, [['0', '0'], ['1', '0'], ['0', '0']]);
    assert.deepEqual(parseProofJson(new TextEncoder().encode(JSON.stringify(json))), inf);
  });

  it('uses the expected curve when "curve" is absent (rapidsnark) and rejects a mismatch', () => {
    const { curve: _omit, ...rapid } = proofToJson(PROOF);
    assert.deepEqual(parseProofJson(rapid, { curve: 'bn128' }), PROOF);
    throwsCode(() => parseProofJson(rapid), 'E_FORMAT', 'proof.json: curve is missing');
    throwsCode(() => parseProofJson(proofToJson(PROOF), { curve: 'bls12381', file: 'p.json' }), 'E_FORMAT', 'p.json: curve is "bn128" but "bls12381" was expected');
  });

  it('rejects every malformed field, naming the file and the field', () => {
    const good = proofToJson(PROOF);
    const bad = (edit: (j: any) => void) => {
      const j = JSON.parse(JSON.stringify(good));
      edit(j);
      return () => parseProofJson(j, { file: 'my-proof.json' });
    };
    throwsCode(bad((j) => (j.pi_b[1][0] = 5)), 'E_FORMAT', 'my-proof.json: pi_b[1][0] is not a decimal string');
    throwsCode(bad((j) => (j.pi_b[1][0] = '0x05')), 'E_FORMAT', 'pi_b[1][0] is not a decimal string');
    throwsCode(bad((j) => (j.pi_b[1][0] = '-5')), 'E_FORMAT', 'pi_b[1][0] is not a decimal string');
    throwsCode(bad((j) => (j.pi_a[0] = '9'.repeat(300))), 'E_FORMAT', 'pi_a[0] is not a decimal string');
    throwsCode(bad((j) => (j.pi_a[1] = BN128.q.toString())), 'E_FORMAT', 'pi_a[1] is not below the BN254 base field prime q');
    throwsCode(bad((j) => (j.pi_c[2] = '2')), 'E_FORMAT', 'pi_c[2] is not "1"');
    throwsCode(bad((j) => (j.pi_c = ['1', '1', '0'])), 'E_FORMAT', 'pi_c has z = 0 but x ≠ 0');
    throwsCode(bad((j) => (j.pi_b[2] = ['1', '1'])), 'E_FORMAT', 'pi_b[2] is not ["1","0"]');
    throwsCode(bad((j) => j.pi_a.pop()), 'E_FORMAT', 'pi_a has 2 elements, expected 3');
    throwsCode(bad((j) => (j.pi_b[0] = '3')), 'E_FORMAT', 'pi_b[0] is not an array');
    throwsCode(bad((j) => delete j.pi_c), 'E_FORMAT', 'pi_c is not an array');
    throwsCode(bad((j) => (j.protocol = 'plonk')), 'E_FORMAT', 'protocol is "plonk", expected "groth16"');
    throwsCode(bad((j) => (j.curve = 'bn254')), 'E_FORMAT', 'curve is "bn254", expected "bn128" or "bls12381"');
    throwsCode(() => parseProofJson('{"pi_a": [', { file: 'x.json' }), 'E_FORMAT', 'x.json: not valid JSON');
    throwsCode(() => parseProofJson('[]'), 'E_FORMAT', 'proof.json: top level is not an object');
  });

  it('writes public signals as decimal strings and parses them strictly against r', () => {
    const signals = [48n, 0n, BN128.r - 1n];
    assert.deepEqual(publicToJson(signals), ['48', '0', (BN128.r - 1n).toString()]);
    assert.deepEqual(parsePublicJson(stringifyPublic(signals), { curve: 'bn128', nPublic: 3 }), signals);
    assert.deepEqual(parsePublicJson([], { curve: BLS12381 }), []);
    throwsCode(() => parsePublicJson([BN128.r.toString()], { curve: 'bn128' }), 'E_FORMAT', 'public.json: [0] is not below the BN254 scalar field prime r');
    throwsCode(() => parsePublicJson(['1', 2], { curve: 'bn128', file: 'pub.json' }), 'E_FORMAT', 'pub.json: [1] is not a decimal string');
    throwsCode(() => parsePublicJson(['1'], { curve: 'bn128', nPublic: 2 }), 'E_FORMAT', 'has 1 public signals, the key expects 2');
    throwsCode(() => parsePublicJson({}, { curve: 'bn128' }), 'E_FORMAT', 'public.json: top level is not an array');
    throwsCode(() => parsePublicJson([], { curve: 'bn254' as 'bn128' }), 'E_INVALID_ARG', 'unknown curve');
    throwsCode(() => publicToJson([-1n]), 'E_INVALID_ARG', 'public signal 0');
  });
});
