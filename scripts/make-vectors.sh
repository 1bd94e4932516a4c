#!/usr/bin/env bash
# make-vectors.sh [OUT_DIR]
#
# Regenerates the Groth16 test vectors under test/vectors/ (or OUT_DIR) from scratch:
# circuit sources, circom2 compilation (bn128 + bls12381), a contributed + prepared
# powers-of-tau per curve, groth16 setup + one zkey contribution per circuit,
# verification keys, witnesses (good, second input, deliberately bad), reference
# proofs, index.json, and a self-check of everything.
#
# Documentation-grade: CI does NOT run this (the `powersoftau prepare phase2` step is
# the slow one). See test/vectors/README.md for versions, sizes and measured timings.
#
# Tools (all from node_modules/.bin of the project root, nothing downloaded):
#   snarkjs 0.7.6, circom2 0.2.23 (= circom compiler 2.2.3 as WASI), circomlib 2.0.5.
#
# Idempotent: everything is built in a fresh temp dir and then copied over OUT_DIR,
# so re-running leaves a complete, consistent set. NOTE: snarkjs contributions mix the
# `-e` entropy with 64 bytes of OS randomness (misc.js getRandomRng), so ptau/zkey/vkey/
# proof bytes differ between runs; r1cs/wasm/wtns/input/public files are deterministic.
#
# Environment knobs:
#   REUSE_PTAU=1   reuse OUT_DIR/<curve>/pot.ptau if it exists (skips the slow ptau steps)
#   KEEP_BUILD=1   keep the temp build dir (printed at the end)
#   PTAU_POWER     powers-of-tau power for both curves (default 10: domain <= 1024)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(realpath -m "${1:-$ROOT/test/vectors}")"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
PTAU_POWER="${PTAU_POWER:-10}"
CURVES=(bn128 bls12381)
CIRCUITS=(multiplier bits poseidon)

for t in "$SNARKJS" "$CIRCOM"; do
  [[ -x "$t" ]] || { echo "missing $t (npm install in $ROOT first)" >&2; exit 1; }
done

BUILD="$(mktemp -d "${TMPDIR:-/tmp}/cuzk-vectors.XXXXXX")"
cleanup() { if [[ "${KEEP_BUILD:-0}" != 1 ]]; then rm -rf "$BUILD"; else echo "build dir kept: $BUILD"; fi; }
trap cleanup EXIT
TIMINGS="$BUILD/timings.tsv"
: > "$TIMINGS"

# step LABEL CMD...   run CMD, log wall-clock seconds to $TIMINGS
step() {
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$BUILD/last.log" 2>&1 || { cat "$BUILD/last.log" >&2; echo "FAILED: $label: $*" >&2; exit 1; }
  t1=$(date +%s.%N)
  printf '%s\t%.1f\n' "$label" "$(awk "BEGIN{print $t1 - $t0}")" | tee -a "$TIMINGS"
}

mkdir -p "$OUT/circuits"

# ---------------------------------------------------------------------------------
# 1. Circuit sources
# ---------------------------------------------------------------------------------
cat > "$OUT/circuits/multiplier.circom" <<'EOF'
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
EOF

cat > "$OUT/circuits/bits.circom" <<'EOF'
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
EOF

cat > "$OUT/circuits/poseidon.circom" <<'EOF'
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
EOF

# ---------------------------------------------------------------------------------
# 2. Inputs (decimal strings). Same inputs on both curves (all values < both r).
# ---------------------------------------------------------------------------------
write_inputs() {  # circuit dir
  local c="$1" d="$2"
  case "$c" in
    multiplier)
      # full-width field elements
      echo '{"a": "1234567890123456789012345678901234567890123456789012345678901234567890123", "b": "9876543210987654321098765432109876543210987654321098765432109876543210987", "k": "1111111111111111111111111111111111111111111111111111111111111111111111111"}' > "$d/input.json"
      # small values: c = 3*11*7 + 3 = 234
      echo '{"a": "3", "b": "11", "k": "7"}' > "$d/input2.json" ;;
    bits)
      # x = 0xDEADBEEFCAFEBABE < bound = 2^64-1  -> lt = 1
      echo '{"x": "16045690984503098046", "bound": "18446744073709551615"}' > "$d/input.json"
      # x = 2^63+5 >= bound = 1000 -> lt = 0
      echo '{"x": "9223372036854775813", "bound": "1000"}' > "$d/input2.json" ;;
    poseidon)
      # bn128: Poseidon([1,2]) = 7853200120776062878684798364095072458815029376092732009249414926327459813530
      echo '{"a": "1", "b": "2"}' > "$d/input.json"
      echo '{"a": "12345678901234567890123456789012345678901234567890", "b": "98765432109876543210987654321098765432109876543210"}' > "$d/input2.json" ;;
  esac
}

# ---------------------------------------------------------------------------------
# 3. Node helper (bad witness, zkey header, index.json)
# ---------------------------------------------------------------------------------
cat > "$BUILD/helper.cjs" <<'EOF'
const fs = require("fs");
function sections(buf, magic) {
  if (buf.toString("ascii", 0, 4) !== magic) throw new Error("not a " + magic + " file");
  const n = buf.readUInt32LE(8); let p = 12; const s = {};
  for (let i = 0; i < n; i++) {
    const t = buf.readUInt32LE(p); const size = Number(buf.readBigUInt64LE(p + 4));
    s[t] = { p: p + 12, size }; p += 12 + size;
  }
  return s;
}
const le = (b) => { let x = 0n; for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]); return x; };
const toLe = (x, n) => { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) { b[i] = Number(x & 0xffn); x >>= 8n; } return b; };
function r1csInfo(f) {
  const b = fs.readFileSync(f); const s = sections(b, "r1cs")[1]; let p = s.p;
  const n8 = b.readUInt32LE(p); p += 4 + n8;
  const nWires = b.readUInt32LE(p), nPubOut = b.readUInt32LE(p + 4), nPubIn = b.readUInt32LE(p + 8), nPrvIn = b.readUInt32LE(p + 12);
  const nConstraints = b.readUInt32LE(p + 24);
  return { nWires, nPubOut, nPubIn, nPrvIn, nConstraints };
}
function zkeyInfo(f) {
  const b = fs.readFileSync(f); const s = sections(b, "zkey"); let p = s[2].p;
  const n8q = b.readUInt32LE(p); p += 4 + n8q; const n8r = b.readUInt32LE(p); p += 4 + n8r;
  return { nVars: b.readUInt32LE(p), nPublic: b.readUInt32LE(p + 4), domainSize: b.readUInt32LE(p + 8) };
}
const [cmd, ...a] = process.argv.slice(2);
if (cmd === "badwtns") {
  // badwtns r1cs in.wtns out.wtns -> changes the first internal wire (first wire after
  // 1 + outputs + public inputs + private inputs): 0<->1 if boolean, else +1 mod r.
  const [r1cs, inF, outF] = a; const info = r1csInfo(r1cs);
  const b = Buffer.from(fs.readFileSync(inF)); const s = sections(b, "wtns");
  const n8 = b.readUInt32LE(s[1].p); const r = le(b.subarray(s[1].p + 4, s[1].p + 4 + n8));
  const nW = b.readUInt32LE(s[1].p + 4 + n8);
  if (nW !== info.nWires) throw new Error("wtns/r1cs wire count mismatch");
  const idx = 1 + info.nPubOut + info.nPubIn + info.nPrvIn;
  const off = s[2].p + idx * n8; const v = le(b.subarray(off, off + n8));
  const nv = v === 0n ? 1n : v === 1n ? 0n : (v + 1n) % r;
  toLe(nv, n8).copy(b, off); fs.writeFileSync(outF, b);
  console.log(JSON.stringify({ index: idx, from: v.toString(), to: nv.toString() }));
} else if (cmd === "info") {
  console.log(JSON.stringify({ ...zkeyInfo(a[1]), nConstraints: r1csInfo(a[0]).nConstraints }));
} else if (cmd === "index") {
  // index OUTDIR curve/circuit...
  const [out, ...sets] = a; const list = [];
  for (const sc of sets) {
    const [curve, circuit] = sc.split("/"); const d = out + "/" + sc;
    const z = zkeyInfo(d + "/circuit.zkey"); const r = r1csInfo(d + "/circuit.r1cs");
    const bad = fs.existsSync(d + "/witness_bad.json") ? JSON.parse(fs.readFileSync(d + "/witness_bad.json", "utf8")) : null;
    list.push({ curve, circuit, dir: sc, nPublic: z.nPublic, nVars: z.nVars, domainSize: z.domainSize,
      nConstraints: r.nConstraints, hasBadWitness: fs.existsSync(d + "/witness_bad.wtns"),
      hasInput2: fs.existsSync(d + "/input2.json") && fs.existsSync(d + "/witness2.wtns"),
      badWireIndex: bad ? bad.index : null, ptau: curve + "/pot.ptau" });
  }
  fs.writeFileSync(out + "/index.json", JSON.stringify(list, null, 2) + "\n");
}
EOF

# ---------------------------------------------------------------------------------
# 4. Per curve: ptau, then per circuit: compile, setup, contribute, vkey, witnesses, proof
# ---------------------------------------------------------------------------------
cd "$ROOT"   # circom2 (WASI) resolves -l node_modules relative to cwd
SETS=()
for curve in "${CURVES[@]}"; do
  B="$BUILD/$curve"; mkdir -p "$B" "$OUT/$curve"

  if [[ "${REUSE_PTAU:-0}" == 1 && -s "$OUT/$curve/pot.ptau" ]]; then
    cp "$OUT/$curve/pot.ptau" "$B/pot.ptau"
    echo "reusing $OUT/$curve/pot.ptau"
  else
    step "$curve ptau new ($PTAU_POWER)"  "$SNARKJS" powersoftau new "$curve" "$PTAU_POWER" "$B/pot_0.ptau"
    step "$curve ptau contribute"         "$SNARKJS" powersoftau contribute "$B/pot_0.ptau" "$B/pot_1.ptau" \
                                            --name="cuzk vectors $curve" -e="cuzk test vectors $curve ptau entropy"
    step "$curve ptau prepare phase2"     "$SNARKJS" powersoftau prepare phase2 "$B/pot_1.ptau" "$B/pot.ptau"
    step "$curve ptau verify"             "$SNARKJS" powersoftau verify "$B/pot.ptau"
  fi

  for c in "${CIRCUITS[@]}"; do
    D="$B/$c"; mkdir -p "$D"
    prime=(); [[ "$curve" == bls12381 ]] && prime=(--prime bls12381)
    step "$curve/$c circom2 compile" "$CIRCOM" "$OUT/circuits/$c.circom" --r1cs --wasm "${prime[@]}" -o "$D" -l node_modules
    cp "$D/$c.r1cs" "$D/circuit.r1cs"
    cp "$D/${c}_js/$c.wasm" "$D/circuit.wasm"
    write_inputs "$c" "$D"

    step "$curve/$c groth16 setup"    "$SNARKJS" groth16 setup "$D/circuit.r1cs" "$B/pot.ptau" "$D/circuit_0.zkey"
    step "$curve/$c zkey contribute"  "$SNARKJS" zkey contribute "$D/circuit_0.zkey" "$D/circuit.zkey" \
                                        --name="cuzk vectors $curve $c" -e="cuzk test vectors $curve $c zkey entropy"
    step "$curve/$c zkey verify"      "$SNARKJS" zkey verify "$D/circuit.r1cs" "$B/pot.ptau" "$D/circuit.zkey"
    step "$curve/$c export vkey"      "$SNARKJS" zkey export verificationkey "$D/circuit.zkey" "$D/vkey.json"

    step "$curve/$c wtns calculate"   "$SNARKJS" wtns calculate "$D/circuit.wasm" "$D/input.json"  "$D/witness.wtns"
    step "$curve/$c wtns calculate 2" "$SNARKJS" wtns calculate "$D/circuit.wasm" "$D/input2.json" "$D/witness2.wtns"
    node "$BUILD/helper.cjs" badwtns "$D/circuit.r1cs" "$D/witness.wtns" "$D/witness_bad.wtns" > "$D/witness_bad.json"

    step "$curve/$c groth16 prove"    "$SNARKJS" groth16 prove "$D/circuit.zkey" "$D/witness.wtns"  "$D/proof.json"  "$D/public.json"
    step "$curve/$c groth16 prove 2"  "$SNARKJS" groth16 prove "$D/circuit.zkey" "$D/witness2.wtns" "$D/proof2.json" "$D/public2.json"
    step "$curve/$c groth16 verify"   "$SNARKJS" groth16 verify "$D/vkey.json" "$D/public.json" "$D/proof.json"

    node "$BUILD/helper.cjs" info "$D/circuit.r1cs" "$D/circuit.zkey" > "$D/info.json"
    echo "$curve/$c: $(cat "$D/info.json") bad wire: $(cat "$D/witness_bad.json")"

    mkdir -p "$OUT/$curve/$c"
    for f in circuit.r1cs circuit.wasm circuit.zkey vkey.json input.json input2.json \
             witness.wtns witness2.wtns witness_bad.wtns witness_bad.json \
             proof.json public.json proof2.json public2.json; do
      cp "$D/$f" "$OUT/$curve/$c/$f"
    done
    SETS+=("$curve/$c")
  done
  cp "$B/pot.ptau" "$OUT/$curve/pot.ptau"
done

node "$BUILD/helper.cjs" index "$OUT" "${SETS[@]}"

# keep git from touching the binaries (no EOL conversion / textual diffs)
printf '%s binary\n' '*.ptau' '*.zkey' '*.wtns' '*.r1cs' '*.wasm' > "$OUT/.gitattributes"

# checksums of every generated file (lets tests detect truncated / LFS-pointer / EOL-mangled files)
( cd "$OUT" && find . -type f ! -name SHA256SUMS ! -name README.md ! -name .gitattributes -printf '%P\n' \
    | LC_ALL=C sort | xargs sha256sum > SHA256SUMS )

# ---------------------------------------------------------------------------------
# 5. Self-check of the committed files
# ---------------------------------------------------------------------------------
fail=0
expect() {  # expect OK|FAIL label cmd...
  local want="$1" label="$2"; shift 2
  if "$@" > "$BUILD/check.log" 2>&1; then got=OK; else got=FAIL; fi
  if [[ "$got" == "$want" ]]; then echo "  ok   $label ($got)"; else echo "  BAD  $label (got $got, want $want)"; cat "$BUILD/check.log"; fail=1; fi
}
echo "self-check:"
for s in "${SETS[@]}"; do
  d="$OUT/$s"
  expect OK   "$s verify proof"        "$SNARKJS" groth16 verify "$d/vkey.json" "$d/public.json"  "$d/proof.json"
  expect OK   "$s verify proof2"       "$SNARKJS" groth16 verify "$d/vkey.json" "$d/public2.json" "$d/proof2.json"
  expect FAIL "$s verify proof vs public2" "$SNARKJS" groth16 verify "$d/vkey.json" "$d/public2.json" "$d/proof.json"
  expect OK   "$s wtns check witness"  "$SNARKJS" wtns check "$d/circuit.r1cs" "$d/witness.wtns"
  expect OK   "$s wtns check witness2" "$SNARKJS" wtns check "$d/circuit.r1cs" "$d/witness2.wtns"
  expect FAIL "$s wtns check witness_bad" "$SNARKJS" wtns check "$d/circuit.r1cs" "$d/witness_bad.wtns"
  # real tau: a proof from the bad witness must NOT verify (with tau=1 it would)
  "$SNARKJS" groth16 prove "$d/circuit.zkey" "$d/witness_bad.wtns" "$BUILD/pb.json" "$BUILD/pubb.json" > /dev/null 2>&1
  expect FAIL "$s verify proof(witness_bad)" "$SNARKJS" groth16 verify "$d/vkey.json" "$BUILD/pubb.json" "$BUILD/pb.json"
done

echo
echo "timings (s):"; cat "$TIMINGS"
[[ "$fail" == 0 ]] && echo "ALL CHECKS PASSED" || { echo "SOME CHECKS FAILED" >&2; exit 1; }
