#!/usr/bin/env bash
# Issue 28's measurement on the GPU machine: the daemon against the in-process engine at 2^20 and
# 2^22 (dev fixtures, 10 clients, gRPC and Connect, every proof verified), with the bench's witness
# MB/s in all, the daemon's main-thread busy share and the share of witness bytes its intake
# processes received; then the front door alone (queue paused, no proving) with 16 clients, intake
# processes off and auto: aggregate MB/s and CPU per MiB of the main thread and of the intake
# processes (scripts/measure-submit.mjs; each client on its own thread, as separate client
# processes would be; then once more with all clients on one event loop, the old measurement). About 6-7 minutes after the build (a carried core: seconds).
# Run there, from the repository root, with carry [".device", "dist"] (and "build/carry" if packed):
#   source .device/boot.sh && bash scripts/device-intake.sh
# Knobs: SIZES="20 22", CLIENTS=10, SYNCS=",block" (each bench once per CUZK_GPU_SYNC value, proc-cpu.mjs beside), BENCH_ONLY=1 (no front-door runs), BENCH_SPOOL (the bench daemon's files.spool_dir, e.g. /dev/shm/cuzk), WIDE=16 (the intake run's clients), FRONT_PROTOCOLS (raw,grpc,connect),
# SKIP_BUILD=1 (a dry run here).
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
SIZES=${SIZES:-"20 22"}
CLIENTS=${CLIENTS:-10}
WIDE=${WIDE:-16}
mkdir -p "$OUT"
step() { echo "=== $1 ($(date +%T))"; }
export CUZK_LOG=${CUZK_LOG:-warn}

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  bash scripts/device-check.sh build || exit 1
fi
[[ -f dist/src/index.js || -f dist/index.js ]] || npm run build:ts > "$OUT/build-ts.log" 2>&1 || { tail -20 "$OUT/build-ts.log"; exit 1; }

jobs_for() { case $1 in 20) echo 200 ;; 22) echo 60 ;; *) echo 40 ;; esac; }
# SYNCS: the CUZK_GPU_SYNC values to run each size with (" block": the default, then block), with
# scripts/proc-cpu.mjs beside each run (cores per process over 5 s windows: whether the GPU threads'
# waiting takes the intake's cores)
IFS=',' read -r -a syncs <<< "${SYNCS:-}"
(( ${#syncs[@]} == 0 )) && syncs=("")
for size in $SIZES; do
  for sync in "${syncs[@]}"; do
    sync=${sync// /}
    step "bench 2^$size: in-process, then cuzk serve over gRPC and Connect, $CLIENTS clients${sync:+, CUZK_GPU_SYNC=$sync}"
    pc=""
    if [[ -n ${SYNCS:-} ]]; then
      node scripts/proc-cpu.mjs --after 8 --for 5 --top 5 --repeat 12 > "$OUT/cpu-$size-${sync:-default}.txt" 2>&1 &
      pc=$!
    fi
    env ${sync:+CUZK_GPU_SYNC=$sync} npm run bench -- engine --size "$size" --jobs "$(jobs_for "$size")" --remote self --clients "$CLIENTS" ${BENCH_SPOOL:+--spool-dir "$BENCH_SPOOL${sync:+-$sync}"} 2>&1 |
      grep -v '"level"' | tee "$OUT/bench-$size-${sync:-default}.txt" | tail -18
    if [[ -n $pc ]]; then
      kill "$pc" 2>/dev/null
      wait "$pc" 2>/dev/null
      cut -c1-300 "$OUT/cpu-$size-${sync:-default}.txt"
    fi
  done
done
[[ ${BENCH_ONLY:-0} == 1 ]] && { step done; exit 0; }

step "front door alone: 2^20 witnesses, $WIDE clients at once, queue paused (intake processes off, then auto)"
# the disk's own rate first (the spool fsyncs every witness: the durable intake cannot pass it), then
# the spool on a tmpfs (files.spool_dir): what the daemon's processes take in when the disk is not the limit
dd if=/dev/zero of=.dd-probe bs=1M count=4096 conv=fsync 2>&1 | tail -1; rm -f .dd-probe
shm=/dev/shm/cuzk-intake-$$
for run in "off $WIDE disk" "auto $WIDE disk" "auto 1 disk" "auto $WIDE tmpfs" "off $WIDE tmpfs"; do
  read -r mode threads where <<< "$run"
  spool=""; [[ $where == tmpfs ]] && spool="$shm/$mode-$threads"
  echo "--- limits.intake_processes = $mode, clients on $threads thread(s), spool on the $where"
  CUZK_SPOOL_DIR=$spool CUZK_INTAKE=$mode node --import tsx scripts/measure-submit.mjs --size 20 --runs 3 --clients "$WIDE" --client-threads "$threads" \
    --protocols "${FRONT_PROTOCOLS:-raw,grpc,connect}" 2>&1 | grep -v '"level"' | tee "$OUT/intake-$mode-$threads-$where.txt" | cut -c1-230 | tail -4
done
rm -rf "$shm"
step done
