#!/usr/bin/env bash
# Issue 26's measurement on the GPU machine: a circomlib Poseidon(2) chain fed by inputs, with
# circom's wasm and with a native generator (`cuzk witness build`), in process and through
# `cuzk serve`; every proof verified (the engine, the bench again, snarkjs for fullprove's).
# Prepared here (the GPU machine has no g++ static libs, no gmp): CHAIN=build/chain2000 holds
# chain.circom + circomlib's poseidon files, chain.gen.xz (the native generator built here) and
# chain.wasm.xz; the r1cs is compiled there with circom2 (deterministic: the generator's wires match).
# Stage with `CIRCOM=1 bash scripts/stage-device.sh`, `npm run build:ts`, then run with
#   carry [".device", "dist", "build/chain2000"]:
#   source .device/boot.sh && bash scripts/device-witness.sh
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
CHAIN=${CHAIN:-build/chain2000}
JOBS=${JOBS:-200}
CLIENTS=${CLIENTS:-16}
mkdir -p "$OUT"
root=$PWD
step() { echo "=== $1 ($(date +%T))"; }
export CUZK_LOG=${CUZK_LOG:-warn}
cuzk() { node "$root/bin/cuzk.js" "$@"; }

if [[ ${SKIP_BUILD:-0} != 1 ]]; then  # SKIP_BUILD=1: a dry run here, on the CPU core
  step "build the CUDA core"
  t0=$(date +%s)
  CUZK_CUDA=1 npm run build:native > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  grep -E "CUDA core|WARNING" "$OUT/build.log" | head -3
  echo "build: $(( $(date +%s) - t0 )) s"
fi

step "circuit: circom2 --r1cs, dev-setup"
W=/tmp/cuzk-chain
rm -rf "$W" && mkdir -p "$W"
cp "$CHAIN"/*.circom "$CHAIN/input.json" "$W/"
xz -dc "$CHAIN/chain.gen.xz" > "$W/chain.gen" && chmod +x "$W/chain.gen"
xz -dc "$CHAIN/chain.wasm.xz" > "$W/chain.wasm"
t0=$(date +%s)
(cd "$W" && node "$root/node_modules/circom2/cli.js" chain.circom --r1cs -o . > circom.log 2>&1) || { tail -5 "$W/circom.log"; exit 1; }
cuzk dev-setup "$W/chain.r1cs" "$W/chain.zkey" --quiet || exit 1
cuzk zkey export verificationkey "$W/chain.zkey" "$W/vkey.json" --quiet || exit 1
ls -la "$W" | grep -E "r1cs|zkey|gen|wasm"
echo "circuit: $(( $(date +%s) - t0 )) s"
snarkjs() { node "$root/node_modules/snarkjs/build/cli.cjs" "$@"; }

step "fullprove: wasm, then native; snarkjs verifies each"
for g in chain.wasm chain.gen; do
  for run in 1 2; do
    echo "$g run $run: $(cuzk fullprove "$W/input.json" "$W/$g" "$W/chain.zkey" "$W/proof.json" "$W/public.json" 2>&1 | tail -1)"
  done
  snarkjs groth16 verify "$W/vkey.json" "$W/public.json" "$W/proof.json" 2>&1 | tail -1
done

step "bench: native generator, in process and cuzk serve ($CLIENTS clients, $JOBS jobs)"
cuzk bench --circuit "$W/chain.zkey" --inputs "$W/input.json" --generator "$W/chain.gen" --jobs "$JOBS" \
  --remote self --clients "$CLIENTS" 2>&1 | tee "$OUT/bench-native.txt" | tail -32

[[ ${WASM:-1} == 1 ]] || { step done; exit 0; }
step "bench: wasm generator, in process"
cuzk bench --circuit "$W/chain.zkey" --inputs "$W/input.json" --generator "$W/chain.wasm" --jobs "${WASM_JOBS:-60}" 2>&1 | tee "$OUT/bench-wasm.txt" | tail -22
step done
