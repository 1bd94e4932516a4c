#!/usr/bin/env bash
# Kernel-time profile of the GPU self-test's bench sections on the GPU machine (nsys if present, else
# ncu): which kernels the MSM / NTT time goes to. Usage there:
#   source .device/boot.sh && bash scripts/gpu-prof.sh [selftest sections, default "bench"]
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
B=build/native
if [[ ! -f $B/CMakeCache.txt ]] || ! grep -q 'CUZK_CUDA:BOOL=ON' $B/CMakeCache.txt; then
  cmake -S native -B $B -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
fi
t0=$(date +%s)
cmake --build $B -j "$(nproc)" --target cuzk_cpu gpu_selftest > "$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
ST=$(find $B -name gpu_selftest -type f -perm -u+x | head -1)
export CUZK_CPU_LIB=$PWD/$B/libcuzk_cpu.so
sections=${*:-bench}
if command -v nsys >/dev/null; then
  nsys profile -t cuda -o "$OUT/prof" --force-overwrite true "$ST" $sections > "$OUT/selftest.log" 2>&1
  echo "selftest exit $?"
  nsys stats --report cuda_gpu_kern_sum --format csv "$OUT/prof.nsys-rep" 2>/dev/null > "$OUT/kern.csv"
  python3 - "$OUT/kern.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 8]
hdr = rows[0]; rows = rows[1:]
ti, ci, ni = hdr.index('Total Time (ns)'), hdr.index('Instances'), hdr.index('Name')
for r in sorted(rows, key=lambda r: -float(r[ti]))[:40]:
    print(f"{float(r[ti])/1e6:10.2f} ms {int(r[ci]):6d}x {float(r[ti])/1e6/int(r[ci]):9.3f} ms/call  {r[ni][:110]}")
PY
  rm -f "$OUT/prof.sqlite"
else
  if [[ $sections == kprof ]]; then
    ncu --clock-control none --profile-from-start off --section SpeedOfLight --section LaunchStats --section Occupancy \
      "$ST" kprof > "$OUT/ncu.log" 2>&1; echo "ncu exit $?"
    python3 scripts/ncu-summary.py "$OUT/ncu.log"; grep -E "kprof|rror" "$OUT/ncu.log" | head
  else
    "$ST" $sections > "$OUT/selftest.log" 2>&1; echo "selftest exit $?"
  fi
fi
grep -E "FAIL|MSM |NTT |prove" "$OUT/selftest.log" | tail -60
