#!/usr/bin/env bash
# rapidsnark and `cuzk prove` (CPU core) as whole processes on the same zkey and witness, alternating,
# ROUNDS rounds: min and median wall time of each and the ratio rapidsnark / cuzk (issue 13's measure).
# With TRACE=1 the cuzk runs print their native phase timings (CUZK_TRACE_PROVE) to $OUT/cpu-trace.txt.
# Usage: bash scripts/cpu-vs-rapidsnark.sh RAPIDSNARK ZKEY WTNS [ROUNDS=11]
set -uo pipefail
cd "$(dirname "$0")/.."
RS=$1 ZKEY=$2 WTNS=$3 ROUNDS=${4:-11}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ms() { local a b; a=$(date +%s%N); "$@" > /dev/null 2>> "$tmp/err" || { echo "failed: $*" >&2; tail -3 "$tmp/err" >&2; exit 1; }; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
rs=() cz=()
for ((i = 0; i < ROUNDS; i++)); do
  rs+=("$(ms "$RS" "$ZKEY" "$WTNS" "$tmp/p1.json" "$tmp/q1.json")")
  cz+=("$(CUZK_BACKEND=cpu CUZK_TRACE_PROVE=${TRACE:-0} ms node bin/cuzk.js prove "$ZKEY" "$WTNS" "$tmp/p2.json" "$tmp/q2.json" --quiet)")
done
[[ ${TRACE:-0} == 1 ]] && grep "cuzk prove n=" "$tmp/err" > "$OUT/cpu-trace.txt"
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%d %d", v[1], v[int((NR + 1) / 2)] }'; }
read -r rmin rmed < <(printf '%s\n' "${rs[@]}" | stats)
read -r cmin cmed < <(printf '%s\n' "${cz[@]}" | stats)
echo "rapidsnark ms: ${rs[*]}"
echo "cuzk ms:       ${cz[*]}"
awk -v rmin="$rmin" -v rmed="$rmed" -v cmin="$cmin" -v cmed="$cmed" -v n="$ROUNDS" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "%d rounds, %d cores, load %s: rapidsnark min %d median %d ms; cuzk min %d median %d ms; rapidsnark/cuzk %.2fx (min) %.2fx (median)\n", n, cores, load, rmin, rmed, cmin, cmed, rmin / cmin, rmed / cmed }'
