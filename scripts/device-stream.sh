#!/usr/bin/env bash
# Issue 32's streamed keys on the GPU machine: build the CUDA core (or install a carried one, as
# device-check.sh does), run the streamed-key GPU tests (test/gpu/stream.test.ts: the same proof
# bytes streamed and resident, both curves, snarkjs verifies; engine.test.ts: the resident road), then
# time one proof at a time resident against streamed at 2^22, and at 2^24 with `24` (a 6 GiB budget:
# the "<= 1.25x the resident wall time"). SELFTEST=1 also runs gpu_selftest's synth section
# (the streamed synthesis against the CPU scatter; builds the selftest, ~1-2 min more).
# Usage there: source .device/boot.sh && bash scripts/device-stream.sh [24]
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
step() { echo "=== $1 ($(date +%T))"; }
export CUZK_LOG=${CUZK_LOG:-warn}
JOBS=${JOBS:-8}

bash scripts/device-check.sh build || exit 1
[[ -f dist/src/index.js ]] || { npm run build:ts > "$OUT/build-ts.log" 2>&1 || { tail -20 "$OUT/build-ts.log"; exit 1; }; }

if [[ ${SELFTEST:-0} == 1 ]]; then
  SELFTEST=synth bash scripts/device-check.sh selftest 2>&1 | grep -E "streamed|FAIL|differs|exit" | head -20
fi

step "test:gpu: stream.test.ts, engine.test.ts"
timeout 300 npm run test:gpu -- --require-gpu test/gpu/stream.test.ts test/gpu/engine.test.ts > "$OUT/test-stream.log" 2>&1
echo "test:gpu exit $?"
grep -E "^# (tests|pass|fail|skipped)|^not ok|^    not ok|error:" "$OUT/test-stream.log" | head -30

# one proof at a time (concurrency 1): p50 latency is the wall time of one proof
bench() {  # name size args...
  local name=$1 size=$2; shift 2
  timeout 240 node bin/cuzk.js bench --size "$size" --jobs "$JOBS" --warmup 2 --concurrency 1 --json "$@" > "$OUT/bench-$name.json" 2> "$OUT/bench-$name.err"
  local rc=$?
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).run;
    const p = (r.key.placements || [])[0];
    const where = p && p.mode === "streamed" ? `streamed ${p.streamed.join(" ")}: ${(p.residentBytes / 2 ** 30).toFixed(2)} of ${(p.keyBytes / 2 ** 30).toFixed(2)} GiB resident, chunks of ${p.chunkPoints}` : r.key.residency;
    console.log(`${process.argv[2].padEnd(22)} p50 ${r.latencyMs.p50.toFixed(1).padStart(7)} ms  ${r.proofsPerSec.toFixed(2).padStart(6)} proofs/s  device ${r.deviceMsPerProof.toFixed(1)} ms  h2d ${r.h2d.gbPerSec == null ? "-" : r.h2d.gbPerSec.toFixed(1)} GB/s  ${r.failed} failed  (${where})`);
  ' "$OUT/bench-$name.json" "$name" 2>/dev/null || { echo "$name: bench exit $rc"; tail -3 "$OUT/bench-$name.err"; }
}
ratio() {  # streamed resident
  node -e '
    const f = (n) => JSON.parse(require("fs").readFileSync(`${process.argv[1]}/bench-${n}.json`, "utf8")).run.latencyMs.p50;
    console.log(`${process.argv[2]} / ${process.argv[3]}: ${(f(process.argv[2]) / f(process.argv[3])).toFixed(3)}x the resident wall time per proof`);
  ' "$OUT" "$1" "$2" 2>/dev/null || echo "ratio $1 / $2: no result"
}

step "2^22: resident, 'auto' under a 3 GiB budget, every set streamed"
bench resident-22 22
bench auto3g-22 22 --memory-gpu-bytes $((3 * 2**30))
bench streamed-22 22 --key-residency streamed
ratio auto3g-22 resident-22
ratio streamed-22 resident-22

if [[ ${1:-} == 24 ]]; then
  step "2^24: resident, then a 6 GiB budget (issue 32: <= 1.25x)"
  bench resident-24 24
  bench budget6g-24 24 --memory-gpu-bytes $((6 * 2**30))
  ratio budget6g-24 resident-24
fi
step done
