#!/usr/bin/env bash
# compute-sanitizer over a small GPU workload (test/gpu/sanitize-workload.ts: three vector proofs,
# MSMs and NTTs with the GPU forced, each checked against the CPU core). Exits non-zero when the
# sanitizer reports any error or the workload fails or finds no GPU. Needs the CUDA build
# (`CUZK_CUDA=1 npm run build:native`) and a GPU; the sanitizer comes with the CUDA toolkit.
#   npm run test:gpu:sanitize                    # memcheck
#   bash scripts/gpu-sanitize.sh racecheck       # or synccheck, initcheck
# Extra sanitizer flags: SANITIZER_FLAGS="--leak-check full".
set -uo pipefail
cd "$(dirname "$0")/.."
tool=${1:-memcheck}

san=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [[ -z $san && -n $d && -x $d/bin/compute-sanitizer ]] && san=$d/bin/compute-sanitizer
done
if [[ -z $san ]]; then
  echo "gpu-sanitize: compute-sanitizer not found on PATH, in \$CUDA_HOME/bin or /usr/local/cuda/bin" >&2
  exit 2
fi

export CUZK_BACKEND=${CUZK_BACKEND:-cuda} CUZK_LOG=${CUZK_LOG:-warn}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
# shellcheck disable=SC2086
"$san" --tool "$tool" --error-exitcode 86 --print-limit 50 ${SANITIZER_FLAGS:-} \
  node --import tsx test/gpu/sanitize-workload.ts 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
secs=$(( $(date +%s) - t0 ))

summaries=$(grep -E "ERROR SUMMARY: [0-9]+ error" "$log" || true)
bad=$(grep -E "ERROR SUMMARY: [0-9]+ error" "$log" | grep -vE "ERROR SUMMARY: 0 errors" || true)
if [[ $rc -ne 0 ]]; then
  case $rc in
    86) why="compute-sanitizer $tool reported errors" ;;
    1) why="a GPU result differed from the CPU core's" ;;
    2) why="no GPU (or no CUDA build)" ;;
    *) why="exit status $rc" ;;
  esac
  echo "gpu-sanitize: FAILED ($why) after ${secs} s" >&2
  exit "$rc"
fi
if [[ -z $summaries || -n $bad ]]; then
  echo "gpu-sanitize: FAILED: ${bad:-no ERROR SUMMARY line from compute-sanitizer}" >&2
  exit 3
fi
echo "gpu-sanitize: $tool clean after ${secs} s"
