#!/usr/bin/env bash
# One run on the GPU machine (see ../shared/device/README.md): build the CUDA core, check it against
# the CPU core, prove with the CLI and verify with snarkjs, then time. Logs go to $OUT.
# Usage there: source .device/boot.sh && bash scripts/device-check.sh [build|check|selftest|sanitize|bench|engine|all]
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
step() { echo "=== $1 ($(date +%T))"; }
what=${1:-all}
export CUZK_LOG=${CUZK_LOG:-warn}
# benches name the commit they measured: the carried core's when `build` installed one (this copy's .git may be stale)
if [[ -z ${CUZK_COMMIT:-} && -f build/carry/commit ]] &&
   { [[ -f build/carry/cuda.tar.xz && ( $what == build || $what == all ) ]] || [[ -f build/native/.carried ]]; }; then
  export CUZK_COMMIT="$(paste -sd' ' build/carry/commit) (carried core)"
fi

if [[ $what == build || $what == all ]]; then
  step build
  t0=$(date +%s)
  if [[ -f build/carry/cuda.tar.xz ]] && tar -tJf build/carry/cuda.tar.xz ./libcuzk_cuda.so > /dev/null 2>&1; then
    # packed by CARRY_CORE=1 scripts/device-carry.sh
    echo "carried CUDA and CPU cores of $(cat build/carry/commit 2>/dev/null | paste -sd' ')"
    mkdir -p build/native
    tar -C build/native -xJf build/carry/cuda.tar.xz ./libcuzk_cuda.so ./libcuzk_cuda_test.so  # the *_test twins: test:gpu's
    for lib in libcuzk_cpu libcuzk_cpu_test; do
      xz -dc build/carry/$lib.so.xz > build/native/$lib.so
    done
    touch build/native/.carried
  else
    rm -f build/native/.carried
    CUZK_CUDA=1 npm run build:native > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
    grep -E "CUDA core|WARNING" "$OUT/build.log"
  fi
  echo "build: $(( $(date +%s) - t0 )) s"
fi

if [[ $what == check || $what == all ]]; then
  step "cli prove on the GPU, verified by snarkjs"
  for c in bn128/poseidon bls12381/poseidon; do
    d=test/vectors/$c
    CUZK_GPU=force CUZK_TRACE_PROVE=1 node bin/cuzk.js prove $d/circuit.zkey $d/witness.wtns $OUT/proof.json $OUT/public.json 2>&1 | grep -E "device=|error" | head -3
    node node_modules/snarkjs/build/cli.cjs groth16 verify $d/vkey.json $OUT/public.json $OUT/proof.json 2>&1 | tail -1
  done
  step test:gpu
  timeout ${TEST_TIMEOUT:-480} npm run test:gpu -- --require-gpu > "$OUT/test-gpu.log" 2>&1; echo "test:gpu exit $?"
  grep -E "^# (tests|pass|fail|skipped)|not ok" "$OUT/test-gpu.log" | head -30
fi

if [[ $what == selftest ]]; then  # the kernels alone: gpu_selftest's checks and timings (SELFTEST=sections)
  step "gpu_selftest ${SELFTEST:-field inv msm ntt bench}"
  if [[ -f build/carry/cuda.tar.xz ]]; then  # packed by scripts/device-carry.sh: no build here
    echo "carried build of $(cat build/carry/commit 2>/dev/null | paste -sd' ')"
    mkdir -p /tmp/cuzk-st
    tar -C /tmp/cuzk-st -xJf build/carry/cuda.tar.xz ./gpu_selftest && chmod +x /tmp/cuzk-st/gpu_selftest
    xz -dc build/carry/libcuzk_cpu.so.xz > /tmp/cuzk-st/libcuzk_cpu.so
    st=/tmp/cuzk-st/gpu_selftest cpu=/tmp/cuzk-st/libcuzk_cpu.so
  else
    [[ -f build/native/libcuzk_cpu.so ]] || CUZK_CUDA=0 npm run build:native > "$OUT/build-cpu.log" 2>&1
    { cmake -S native -B build/selftest -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON && \
      cmake --build build/selftest -j"$(nproc)" --target gpu_selftest; } > "$OUT/selftest-build.log" 2>&1 || {
      tail -30 "$OUT/selftest-build.log"; exit 1; }
    st=build/selftest/tools/gpu_selftest cpu=$PWD/build/native/libcuzk_cpu.so
  fi
  CUZK_CPU_LIB=$cpu timeout ${SELFTEST_TIMEOUT:-540} "$st" ${SELFTEST:-field inv msm ntt bench} > "$OUT/selftest.log" 2>&1
  echo "gpu_selftest exit $?"
  grep -E "FAIL|differs" "$OUT/selftest.log" | head -20
  sed -n '/==== summary/,$p' "$OUT/selftest.log"
fi

if [[ $what == sanitize || $what == all ]]; then
  step compute-sanitizer
  timeout 240 npm run test:gpu:sanitize > "$OUT/sanitize.log" 2>&1; echo "sanitize exit $?"
  tail -5 "$OUT/sanitize.log"
fi

if [[ $what == bench || $what == all ]]; then
  step "bench gpu"
  timeout 400 npm run bench -- gpu > "$OUT/bench-gpu.log" 2>&1; echo "bench gpu exit $?"
  tail -40 "$OUT/bench-gpu.log"
  cp bench/RESULTS.md "$OUT/RESULTS.md"
fi

if [[ $what == engine || $what == all ]]; then
  step "engine bench 2^20"
  timeout 400 npm run bench -- engine --size ${SIZE:-20} --jobs ${JOBS:-40} --compare pinned:off --trace "$OUT/trace.json" > "$OUT/engine.log" 2>&1; echo "engine bench exit $?"
  tail -30 "$OUT/engine.log"
  cp bench/RESULTS.md "$OUT/RESULTS.md"
fi

if [[ $what == serve || $what == all ]]; then
  step "cuzk serve: start, load key, 50 jobs, status, metrics, SIGTERM"
  F=.cache/bench/bn128-2_${SERVE_SIZE:-16}
  [[ -f $F/circuit.zkey ]] || node --import tsx -e "import('./src/dev/bench-fixture.ts').then(m => m.benchFixture('.', 'bn128', ${SERVE_SIZE:-16}, console.error))"
  node bin/cuzk.js zkey export verificationkey $F/circuit.zkey $F/vkey.json > /dev/null
  timeout 240 node scripts/serve-check.mjs --key $F/circuit.zkey --wtns $F/witness.wtns --vkey $F/vkey.json --jobs 50 > "$OUT/serve.log" 2>&1; echo "serve-check exit $?"
  tail -30 "$OUT/serve.log"
fi
