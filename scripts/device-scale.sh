#!/usr/bin/env bash
# Issue 32 at the seed's scale, on the GPU machine: dev fixtures of 2^25 / 2^26 made in one step (`cuzk dev-setup
# --constraints`: the key and the witness, no .r1cs; the disk holds one fixture at a time, so each is deleted once
# measured), each proved by the one-shot CLI on the GPU and verified by snarkjs, then by `cuzk bench` with the
# key resident (a few proofs: wall per proof), then a table. $OUT gets per fixture a log and bench's JSON, and
# the table (scale-table.md): 7 files for three fixtures (8 come back).
# Here: `npm run build:ts` (dist/ travels), and the CUDA core carried (CARRY_CORE=1 scripts/device-carry.sh) or
# built there (~4 min, by device-check.sh build). Run with carry [".device", "dist", "build/carry"]:
#   source .device/boot.sh && bash scripts/device-scale.sh bn254-26          (one fixture per call: ~3 min)
#   source .device/boot.sh && bash scripts/device-scale.sh bls-25 bls-26     (~6 min)
# Fixtures: bn254-K, bls-K for K 8..26 (2^27 does not fit the machine's 64 GiB disk: docs/architecture.md).
# A dry run on the CPU core: NO_GPU=1 bash scripts/device-scale.sh bn254-12 bls-12
# Knobs: JOBS (bench's measured proofs, default 4), SCALE_DIR (default /tmp/cuzk-scale), KEEP=1 keeps the fixture,
# BENCH_ARGS (more bench options: the scaled-down 2^27 BLS12-381 run of docs/architecture.md is
#   BENCH_ARGS="--memory-gpu-bytes 67108864000" bash scripts/device-scale.sh bls-26).
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
W=${SCALE_DIR:-/tmp/cuzk-scale}
JOBS=${JOBS:-4}
mkdir -p "$OUT"
root=$PWD
export CUZK_LOG=${CUZK_LOG:-warn}
step() { echo "=== $1 ($(date +%T))"; }
cuzk() { node "$root/bin/cuzk.js" "$@"; }
snarkjs() { node "$root/node_modules/snarkjs/build/cli.cjs" "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
gib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 2^30 }'; }
timed() { if [[ -x /usr/bin/time ]]; then /usr/bin/time -f 'peak RSS %M KiB' "$@"; else "$@"; fi; }

# NO_GPU=1: a dry run on the CPU core (here, at small K)
gpu=force
if [[ ${NO_GPU:-0} == 1 ]]; then gpu=off; elif [[ ! -f build/native/libcuzk_cuda.so ]]; then bash scripts/device-check.sh build || exit 1; fi
if [[ ! -f dist/src/cli/run.js ]]; then step "tsc (no dist/ carried)"; npx tsc -p tsconfig.json || exit 1; fi
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader 2>/dev/null
echo "disk free under $(dirname "$W"): $(df -B1 --output=avail "$(dirname "$W")" | tail -1 | xargs -I{} awk 'BEGIN { printf "%.1f GiB", {} / 2^30 }')"

rows=()
for fx in "${@:-bn254-26}"; do
  case $fx in
    bn254-*) curve=bn128 lg=${fx#bn254-} ;;
    bls-*) curve=bls12381 lg=${fx#bls-} ;;
    *) lg=x ;;
  esac
  [[ $lg =~ ^[0-9]+$ ]] && (( lg >= 8 && lg <= 26 )) || { echo "device-scale: unknown fixture $fx (bn254-K or bls-K, K 8..26)"; exit 2; }
  rm -rf "$W" && mkdir -p "$W"
  step "$fx: dev-setup --constraints $((2 ** lg - 3)) --curve $curve (key + witness, no .r1cs)"
  t0=$(now)
  timed node "$root/bin/cuzk.js" dev-setup --constraints $((2 ** lg - 3)) --curve $curve --seed scale "$W/k.zkey" "$W/k.wtns" \
    > "$W/setup.txt" 2> "$OUT/$fx.log" || { tail -5 "$OUT/$fx.log"; exit 1; }
  cat "$W/setup.txt" | tee -a "$OUT/$fx.log"  # its phases' wall times: constraints (made + accumulated), IC, A, B1, B2, C, H
  setup_s=$(since "$t0")
  rss=$(grep -o 'peak RSS [0-9]* KiB' "$OUT/$fx.log" | awk '{ printf "%.1f GiB", $3 / 2^20 }')
  zkey_b=$(stat -c %s "$W/k.zkey") wtns_b=$(stat -c %s "$W/k.wtns")
  echo "made in $setup_s s, peak RSS ${rss:-n/a}; zkey $(gib "$zkey_b") GiB, wtns $(gib "$wtns_b") GiB; on disk: $(du -sh "$W" | cut -f1); nothing else in $W: $(ls "$W" | grep -v setup.txt | paste -sd' ')"
  cuzk zkey export verificationkey "$W/k.zkey" "$W/vkey.json" --quiet || exit 1

  step "$fx: one-shot cuzk prove on the GPU, snarkjs verify"
  t0=$(now)
  line=$(CUZK_GPU=$gpu cuzk prove "$W/k.zkey" "$W/k.wtns" "$W/proof.json" "$W/public.json" 2>&1 | tee -a "$OUT/$fx.log" | grep -E '^proof written|error' | tail -1)
  prove_s=$(since "$t0")
  echo "$line (process $prove_s s)"
  verdict=$(snarkjs groth16 verify "$W/vkey.json" "$W/public.json" "$W/proof.json" 2>&1 | grep -oE 'OK!|Invalid proof' | tail -1)
  echo "snarkjs: ${verdict:-no verdict}"

  step "$fx: cuzk bench, key resident ($JOBS proofs after 1 warm-up) ${BENCH_ARGS:-}"
  # shellcheck disable=SC2086 # BENCH_ARGS: extra options, e.g. the scaled-down 2^27 run's --memory-gpu-bytes
  cuzk bench --circuit "$W/k.zkey" --witness "$W/k.wtns" --jobs "$JOBS" --warmup 1 ${BENCH_ARGS:-} --json > "$OUT/$fx-bench.json" 2>> "$OUT/$fx.log"
  bench_rc=$?
  bench=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).run;
    const wall = r.completed > 0 ? r.wallMs / r.completed : NaN;
    console.log([r.completed + "/" + r.jobs, wall.toFixed(0), r.latencyMs.p50.toFixed(0), r.deviceMsPerProof.toFixed(0), r.proofsPerSec.toFixed(2)].join(" "));
  ' "$OUT/$fx-bench.json" 2>/dev/null || echo "failed - - - -")
  [[ $bench_rc == 0 ]] || tail -3 "$OUT/$fx.log"
  echo "bench (verified/jobs, wall ms/proof, p50 ms, GPU kernel ms/proof, proofs/s): $bench"
  load=$(grep -oE 'load [0-9]+ ms' <<< "$line" | head -1) prove=$(grep -oE 'prove [0-9]+ ms' <<< "$line" | head -1)
  rows+=("| $fx | $setup_s | $(gib "$zkey_b") | $(gib "$wtns_b") | ${rss:-n/a} | ${load:-load -} / ${prove:-prove -} | ${verdict:-none} | ${bench// / | } |")
  [[ ${KEEP:-0} == 1 ]] || rm -rf "$W"
done

step "table"
{
  echo "| fixture | setup s | zkey GiB | wtns GiB | setup peak RSS | one-shot load / prove | snarkjs | bench verified | wall ms/proof | p50 ms | GPU ms/proof | proofs/s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$OUT/scale-table.md"
