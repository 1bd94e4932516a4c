pragma circom 2.0.0;

// Tiny circuit for fast tests.
//   public input a, private inputs b, k
//   ab = a*b, abk = ab*k, b != 0 (via inverse), c = abk + a
//   public output c
// nPublic = 2 (wire 1 = c, wire 2 = a)
template Multiplier() {
    signal input a;
    signal input b;
    signal input k;
    signal output c;

    signal ab;
    signal abk;
    signal binv;

    ab <== a * b;
    abk <== ab * k;

    binv <-- 1 / b;
    binv * b === 1;

    c <== abk + a;
}

component main {public [a]} = Multiplier();
