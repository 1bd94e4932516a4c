#!/usr/bin/env bash
# Issue 29's NTT measurement on the GPU machine, ~4-5 minutes: every NTT pass kernel
# (gpu_tuning_t's ntt_variants, CUZK_GPU_NTT) checked against the CPU core and timed device-resident
# at 2^20 / 2^22 / 2^24 (gpu_selftest nttcand: the forward transform and the proof's iNTT -> coset
# NTT pair), the cuzk_ntt road at 2^24 taken apart (PCIe each way, kernels, the rest), then the gpu
# bench (the ntt() entry, proofs at 2^20 and 2^24; proofs verified, 2^20 compared with the CPU core's)
# with the old kernel and with the fastest candidate. A table last.
# Prepared here: `CARRY_CORE=1 bash scripts/device-carry.sh` (the CUDA core, the selftest and the
# CPU core, xz'd into build/carry), then run with
#   carry [".device", "build/carry"]:  source .device/boot.sh && bash scripts/device-ntt.sh
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
step() { echo "=== $1 ($(date +%T))"; }
export CUZK_LOG=${CUZK_LOG:-warn}

bash scripts/device-check.sh build || exit 1
SELFTEST="ntt nttcand" SELFTEST_TIMEOUT=${SELFTEST_TIMEOUT:-200} bash scripts/device-check.sh selftest |
  grep -vE "^(NTT|mul|sqr|MSM|H2D) " # the summary's other rows are the same as the selftest's log lines below
log=$OUT/selftest.log
[[ -f $log ]] || { echo "device-ntt: no selftest log"; exit 1; }

# the fastest candidate by the proof's pair at 2^24 (BN254), among those equal to the CPU core
best=$(grep -E "^ok   NTT cand .*bn254 Fr +2\^24:.*= CPU: yes" "$log" |
  sed -E 's/^ok   NTT cand ([^ ]+) .*iNTT\+coset NTT +([0-9.]+) ms.*/\2 \1/' | sort -n | head -1 | cut -d' ' -f2)
echo "fastest candidate at 2^24 (the proof's pair): ${best:-none}"

bench_one() {  # $1 variant, $2 proof sizes
  step "bench gpu, CUZK_GPU_NTT=$1"
  CUZK_GPU_NTT=$1 timeout ${BENCH_TIMEOUT:-240} npm run bench -- gpu --sizes 24 --proof-sizes "$2" --runs 5 --budget-s 220 \
    > "$OUT/bench-$1.log" 2>&1
  echo "bench exit $?"
  grep -E "BN254 NTT \(forward\)|NTT ms / MSM|Groth16 (GPU phase 2|wall)|verifies; = CPU|target: (BN254 NTT|the 7 NTTs)" \
    "$OUT/bench-$1.log" | head -12
}
bench_one base 20,24
[[ -n $best && $best != base ]] && bench_one "$best" 20,24
cp bench/RESULTS.md "$OUT/RESULTS.md" 2>/dev/null

step "table"
echo "| candidate | field | 2^20 fwd / pair ms | 2^22 fwd / pair ms | 2^24 fwd / pair ms | 3 pairs at 2^24 | = CPU |"
echo "|---|---|---|---|---|---|---|"
grep -E "^(ok  |FAIL) NTT cand " "$log" | sed -E 's/^(ok  |FAIL) NTT cand //' | awk '
  { name=$1; field=$2" "$3; lg=$4; fwd=$6; pair=$10; x3=$13; ok=$NF;
    key=name"|"field; if (!(key in seen)) { order[++n]=key; seen[key]=1 }
    cell[key, lg]=fwd" / "pair; if (lg=="2^24:") { gsub(/\)/, "", x3); three[key]=x3 } if (ok!="yes") bad[key]=1 }
  END { for (i=1;i<=n;i++) { k=order[i]; split(k, p, "|");
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], cell[k,"2^20:"], cell[k,"2^22:"], cell[k,"2^24:"], three[k], (k in bad) ? "**NO**" : "yes" } }'
grep -E "cuzk_ntt road" "$log" | sed -E 's/^(ok  |FAIL) //'
echo "(sppark, same H200: BN254 NTT 2^20 0.276 ms, 2^22 1.10, 2^24 4.66 device-resident; targets: 2^24 <= 4.5 ms, the 7 NTTs of a 2^24 proof <= 35 ms)"
