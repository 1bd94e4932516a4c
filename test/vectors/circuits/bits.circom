pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Many boolean (0/1) wires: Num2Bits(64) of a private x (range check x < 2^64)
// plus LessThan(64)(x, bound) (which itself is a Num2Bits(65)).
//   public input bound, private input x
//   public output lt = (x < bound) ? 1 : 0
// nPublic = 2 (wire 1 = lt, wire 2 = bound)
template Bits() {
    signal input x;
    signal input bound;
    signal output lt;

    component n2b = Num2Bits(64);
    n2b.in <== x;

    component cmp = LessThan(64);
    cmp.in[0] <== x;
    cmp.in[1] <== bound;
    lt <== cmp.out;
}

component main {public [bound]} = Bits();
