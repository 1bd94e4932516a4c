pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// Poseidon(2) from circomlib.
//   public input a, private input b
//   public output h = Poseidon([a, b])
// nPublic = 2 (wire 1 = h, wire 2 = a)
// NOTE: circomlib's Poseidon constants are for the BN254 scalar field. Compiled with
// --prime bls12381 the circuit is still a valid R1CS (and the vectors are valid Groth16
// vectors), but the function is NOT a standard/secure Poseidon over BLS12-381.
template PoseidonHash() {
    signal input a;
    signal input b;
    signal output h;

    component p = Poseidon(2);
    p.inputs[0] <== a;
    p.inputs[1] <== b;
    h <== p.out;
}

component main {public [a]} = PoseidonHash();
