#!/usr/bin/env bash
# Issue 32's start-up and partition measurements on the GPU machine (see ../shared/device/README.md):
#   1. one-shot `cuzk prove` whole-process wall at 2^20 (and 2^24 with BIG=1), page cache warm, RUNS
#      runs each, every proof verified by snarkjs, each with its breakdown (--json timings: node and
#      modules, core load, key read / pin / plan, when the witness and the GPU context were in, key
#      upload, prove, verify, exit; and the native CUZK_TRACE_PROVE line);
#   2. `cuzk bench --partitions 10` lone jobs (one 10-partition job at a time) at 2^22 (and 2^24):
#      GPU busy in the engine and through a `cuzk serve` child (--remote self, the witness file named
#      per partition), with the idle gaps of both traces by cause (`cuzk report`'s analysis).
# Builds the CUDA core unless one was carried (build/carry/cuda.tar.xz, from
# `CARRY_CORE=1 bash scripts/device-carry.sh`), compiles dist/ if it is older than src/, and makes the
# dev fixtures it needs (.cache/bench; 2^24 takes ~90 s there, hence BIG=1).
# Run there:  source .device/boot.sh && bash scripts/device-prep.sh [all|prove|bench]   (carry .device)
#             BIG=1 RUNS=3 bash scripts/device-prep.sh                  (also 2^24: ~6 minutes in all)
# A second call on the same (warm) machine finds the build and the fixtures there: `prove` and
# `bench` then run one half each.
# SKIP_BUILD=1 uses build/native as it is; PROVE_SIZES / BENCH_SIZES (lists of log2 sizes) replace the
# defaults: a dry run here on the CPU core is
#   SKIP_BUILD=1 CUZK_BACKEND=cpu PROVE_SIZES=16 BENCH_SIZES=12 RUNS=2 bash scripts/device-prep.sh
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
root=$PWD
TMP=${PREP_TMP:-/tmp/cuzk-prep}
mkdir -p "$TMP"
RUNS=${RUNS:-5}
what=${1:-all}
export CUZK_LOG=${CUZK_LOG:-warn}
step() { echo "=== $1 ($(date +%T))"; }
cuzk() { node "$root/bin/cuzk.js" "$@"; }
snarkjs() { node "$root/node_modules/snarkjs/build/cli.cjs" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
prove_sizes="20" bench_sizes="22"
[[ ${BIG:-0} == 1 ]] && prove_sizes="20 24" bench_sizes="22 24"
prove_sizes=${PROVE_SIZES:-$prove_sizes} bench_sizes=${BENCH_SIZES:-$bench_sizes}
[[ $what == bench ]] && prove_sizes=""
[[ $what == prove ]] && bench_sizes=""

if [[ ${SKIP_BUILD:-0} != 1 ]]; then  # a carried core installed, else built (device-check.sh's one road)
  bash scripts/device-check.sh build || exit 1
fi
if [[ ! -f dist/src/cli/run.js || -n $(find src -name '*.ts' -newer dist/src/cli/run.js | head -1) ]]; then
  npm run build:ts > "$OUT/tsc.log" 2>&1 || { tail -20 "$OUT/tsc.log"; exit 1; }
fi

step "fixtures: 2^$prove_sizes / 2^$bench_sizes"
for k in $(echo "$prove_sizes $bench_sizes" | tr ' ' '\n' | sort -un); do
  t0=$(date +%s)
  node -e "import('./dist/src/dev/bench-fixture.js').then(m => m.benchFixture('.', 'bn128', $k, console.error))" || exit 1
  F=.cache/bench/bn128-2_$k
  [[ -f $F/vkey.json ]] || cuzk zkey export verificationkey "$F/circuit.zkey" "$F/vkey.json" --quiet || exit 1
  echo "2^$k: $(du -h "$F/circuit.zkey" | cut -f1) zkey, $(du -h "$F/witness.wtns" | cut -f1) witness ($(( $(date +%s) - t0 )) s)"
done

if [[ $what != bench && -f build/native/libcuzk_cuda_test.so ]]; then
  step "test:gpu one-shot.test.ts (the one-shot road on GPU 0)"
  timeout 120 npm run test:gpu -- --require-gpu test/gpu/one-shot.test.ts > "$TMP/test-gpu.log" 2>&1; echo "exit $?"
  grep -E "^# (pass|fail|skipped)|not ok" "$TMP/test-gpu.log" | head -8
fi

step "one-shot cuzk prove, whole process, page cache warm; every proof verified by snarkjs"
for k in $prove_sizes; do
  F=.cache/bench/bn128-2_$k
  cat "$F/circuit.zkey" "$F/witness.wtns" > /dev/null  # in the page cache
  # then HUGE_RUNS more with the key's and the witness's mappings on transparent huge pages: fewer
  # faults, pins and page frees (the process's exit frees the key: ~9 GB at 2^24)
  # PROVE_ENVS: ';'-separated sets of environment assignments, each run once per set in turn
  # (e.g. "CUZK_EXIT=normal;" compares the normal exit with the default; an empty set is the default)
  IFS=';' read -r -a envsets <<< "${PROVE_ENVS:-}"
  (( ${#envsets[@]} == 0 )) && envsets=("")
  for run in $(seq 1 $(( RUNS + ${HUGE_RUNS:-2} ))); do
    for envset in "${envsets[@]}"; do
      huge=0 label="2^$k run $run${envset:+, $envset}"
      (( run > RUNS )) && huge=1 label="2^$k run $run, CUZK_HUGEPAGES=1${envset:+, $envset}"
      t0=$(now_ms)
      # shellcheck disable=SC2086 # envset is a list of assignments
      env CUZK_HUGEPAGES=$huge CUZK_TRACE_PROVE=1 $envset node "$root/bin/cuzk.js" prove "$F/circuit.zkey" "$F/witness.wtns" "$TMP/proof.json" "$TMP/public.json" --json > "$TMP/prove.json" 2> "$TMP/prove.err"
      rc=$?
      wall=$(( $(now_ms) - t0 ))
      node scripts/prep-summary.mjs prove "$label (exit $rc)" "$wall" "$TMP/prove.json" "$TMP/prove.err"
      echo "    snarkjs: $(snarkjs groth16 verify "$F/vkey.json" "$TMP/public.json" "$TMP/proof.json" 2>&1 | tail -1 | sed 's/\x1b\[[0-9;]*m//g')"
      rm -f "$TMP/proof.json" "$TMP/public.json"
    done
  done
done

if [[ -n $prove_sizes ]]; then
  # where the key read's time goes: ProvingKey.load alone in a fresh process, beside the driver's
  # start (as `cuzk prove`), after it, and without pins (scripts/measure-key-read.mjs)
  step "key read of the 2^${prove_sizes%% *} key: beside / after the driver's start, pinned or not"
  for mode in beside warm-first unpinned unpinned-beside beside; do
    node scripts/measure-key-read.mjs ".cache/bench/bn128-2_${prove_sizes%% *}/circuit.zkey" "$mode" 2>/dev/null | cut -c1-330
  done
fi

step "lone 10-partition jobs: cuzk bench --partitions 10 --concurrency 1, in the engine and through cuzk serve"
for k in $bench_sizes; do
  echo "2^$k:"
  timeout 300 node bin/cuzk.js bench --size "$k" --partitions 10 --jobs "${JOBS:-3}" --warmup 1 --concurrency 1 --clients 1 \
    --remote self --trace "$TMP/trace-$k.json" --json > "$TMP/bench-$k.json" 2> "$TMP/bench-$k.err"
  echo "  exit $?"
  node scripts/prep-summary.mjs bench "$TMP/bench-$k.json" || tail -3 "$TMP/bench-$k.err"
  for t in "$TMP/trace-$k.json" "$TMP/trace-$k-daemon.json"; do
    [[ -f $t ]] && node scripts/prep-summary.mjs gaps "$t"
  done
  xz -T0 -c "$TMP/trace-$k.json" > "$OUT/trace-$k.json.xz"  # for `cuzk report` here
done
step done
