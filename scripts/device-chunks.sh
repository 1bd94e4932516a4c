#!/usr/bin/env bash
# Issue 32's resident 2^26 proof by MSM chunk length and chunk window (`cuzk bench --size 26`, one proof
# at a time; the default placement first, then each forced chunk length, then with CUZK_GPU_CHUNK_WINDOW
# widths): which chunk plan a key that fits the GPU only beside a chunk's scratch should get.
# Usage there: source .device/boot.sh && bash scripts/device-chunks.sh [size] [chunk lg ...]
#   CHUNK_WINDOWS="18 20" also runs the largest chunk length at those window caps; MEM=bytes gives the
#   chunked runs that GPU budget (a key that fits whole with its unchunked scratch ignores a chunk length:
#   on the H200 a 2^26 key does; MEM=$((72 * 2**30)) makes it an H100's).
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export CUZK_LOG=${CUZK_LOG:-warn}
size=${1:-26}
shift || true
chunks=${*:-22 24}
bash scripts/device-check.sh build > /dev/null || exit 1
[[ -f dist/src/index.js ]] || npm run build:ts > "$OUT/build-ts.log" 2>&1 || { tail -20 "$OUT/build-ts.log"; exit 1; }
run() {  # name args...
  local name=$1; shift
  timeout 300 node bin/cuzk.js bench --size "$size" --jobs "${JOBS:-4}" --warmup 2 --concurrency 1 --json "$@" > "$OUT/scale-$name.json" 2> "$OUT/scale-$name.err"
  local rc=$?
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).run;
    const p = r.key.placements[0], G = 2 ** 30;
    console.log(`${process.argv[2].padEnd(12)} p50 ${r.latencyMs.p50.toFixed(1).padStart(7)} ms  device ${r.deviceMsPerProof.toFixed(1).padStart(7)} ms/proof  ${r.failed} failed  (${p.mode}, chunks of ${p.chunkPoints} (${p.chunks} a proof), scratch ${(p.scratchBytes / G).toFixed(2)} GiB, key ${(p.keyBytes / G).toFixed(2)} GiB)  [msm ${r.phasesMs.msm.toFixed(1)}, ntt ${r.phasesMs.ntt.toFixed(1)}]`);
  ' "$OUT/scale-$name.json" "$name" 2>/dev/null || { echo "$name: bench exit $rc"; tail -3 "$OUT/scale-$name.err"; }
}
echo "=== 2^$size: default placement, then chunks of 2^{$chunks} ($(date +%T))"
run default
last=""
mem=()
[[ -n ${MEM:-} ]] && mem=(--memory-gpu-bytes "$MEM")
for c in $chunks; do run "c$c" --stream-chunk-points $((2 ** c)) "${mem[@]}"; last=$c; done
for w in ${CHUNK_WINDOWS:-}; do CUZK_GPU_CHUNK_WINDOW=$w run "c$last-w$w" --stream-chunk-points $((2 ** last)) "${mem[@]}"; done
echo "=== done ($(date +%T))"
