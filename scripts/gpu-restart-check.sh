#!/usr/bin/env bash
# The restart an operator does on the GPU machine, measured: a daemon pins a large pool (grown in the
# background after it is ready), is killed with -9 while holding it, and a new one is started at once
# on the same data dir (--takeover: it waits for the dead one's journal lock). The note records how
# long each took to be ready and to fill its pool, the new daemon's memory-wait progress lines (the
# dead process's pinned memory returns only as the driver frees it) and MemAvailable every 0.5 s.
# Plain bash + node over dist/ (build it first: npx tsc -p tsconfig.json).
# Usage: bash scripts/gpu-restart-check.sh [SIZE=32G] [NOTE=$OUT/gpu-restart-check.txt]
#   SIZE: the pinned pool and pinned budget, bytes or with a G/M suffix. The wait shows only when the
#   dead daemon's pool still holds memory the new one needs: SIZE above half of MemTotal is sure to.
#   Env: CHUNK (1G), LISTEN (127.0.0.1:9931), WAIT_S (memory_wait_s, 300), FULL_TIMEOUT_S (600).
set -uo pipefail
cd "$(dirname "$0")/.."
bytes() { case $1 in *G) echo $(( ${1%G} << 30 )) ;; *M) echo $(( ${1%M} << 20 )) ;; *) echo "$1" ;; esac; }
SIZE=${1:-32G}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
NOTE=${2:-$OUT/gpu-restart-check.txt}
POOL=$(bytes "$SIZE")
CHUNK_BYTES=$(bytes "${CHUNK:-1G}")
LISTEN=${LISTEN:-127.0.0.1:9931}
[[ -f dist/src/cli/run.js ]] || { echo "gpu-restart-check: dist/ is missing: run npx tsc -p tsconfig.json first" >&2; exit 2; }
DATA=$(mktemp -d /tmp/cuzk-restart-XXXXXX)
LOGA=$OUT/restart-a.log
LOGB=$OUT/restart-b.log
: > "$NOTE"

now_ms() { date +%s%3N; }
avail_mib() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }
say() { echo "$*" | tee -a "$NOTE"; }
serve() { # log file, extra flags...: a daemon in the background; its pid in $PID
  local log=$1; shift
  node bin/cuzk.js serve --data-dir "$DATA" --listen "$LISTEN" --pinned-pool-bytes "$POOL" --pinned-chunk-bytes "$CHUNK_BYTES" \
    --memory-pinned-bytes "$POOL" --memory-wait-s "${WAIT_S:-300}" --log-level info "$@" 2> "$log" &
  PID=$!
}
until_ready() { # log, pid: 0 once it listens, 1 if it exited first
  until grep -q '"msg":"cuzk serve listening"' "$1"; do
    kill -0 "$2" 2> /dev/null || return 1
    sleep 0.05
  done
}
pool() { # "bytes target state" from cuzk status --json
  node bin/cuzk.js status --remote "$LISTEN" --json 2> /dev/null |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { try { const p = JSON.parse(s).pinnedPool; console.log(p.bytes, p.targetBytes, p.growState); } catch { console.log("? ? unreachable"); } });'
}
until_full() { # label, t0: a line every ~2 s while the pool grows; 0 when full
  local last=0 line state
  local deadline=$(( $(now_ms) + ${FULL_TIMEOUT_S:-600} * 1000 ))
  while :; do
    line=$(pool); state=${line##* }
    [[ $state == full ]] && return 0
    (( $(now_ms) > deadline )) && { say "$1: pool not full after ${FULL_TIMEOUT_S:-600} s: $line"; return 1; }
    if (( $(now_ms) - last >= 2000 )); then
      last=$(now_ms)
      say "$1: +$(( last - $2 )) ms pool $(awk '{ printf "%.2f of %.2f GiB (%s)", $1 / 2^30, $2 / 2^30, $3 }' <<< "$line"), MemAvailable $(avail_mib) MiB"
    fi
    sleep 0.2
  done
}
lines() { # pino JSON lines on stdin as "time msg {fields}"
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { for (const l of s.split("\n").filter(Boolean)) { try { const { level, time, pid, hostname, name, msg, ...rest } = JSON.parse(l); console.log(new Date(time).toISOString().slice(11, 23), msg, JSON.stringify(rest)); } catch { console.log(l); } } });'
}
finish() {
  [[ -n ${PID:-} ]] && kill -TERM "$PID" 2> /dev/null && wait "$PID" 2> /dev/null
  [[ -n ${SAMPLER:-} ]] && kill "$SAMPLER" 2> /dev/null
  rm -rf "$DATA"
}
trap finish EXIT

say "gpu-restart-check $(date -u +%FT%TZ) on $(hostname): pool $SIZE ($POOL bytes), chunks of $CHUNK_BYTES bytes"
say "MemTotal $(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo) MiB, MemAvailable $(avail_mib) MiB"
command -v nvidia-smi > /dev/null && say "GPU: $(nvidia-smi --query-gpu=name,memory.used,memory.total,driver_version --format=csv,noheader | head -1)"

t0=$(now_ms)
serve "$LOGA"
A=$PID
until_ready "$LOGA" "$A" || { say "first daemon exited before it was ready:"; tail -20 "$LOGA" | tee -a "$NOTE"; exit 1; }
say "A: ready in $(( $(now_ms) - t0 )) ms (first chunk pinned; the rest grows in the background)"
until_full A "$t0" || exit 1
say "A: pool full in $(( $(now_ms) - t0 )) ms; its log: $(grep 'pinned pool at its target' "$LOGA" | lines)"
say "A: MemAvailable $(avail_mib) MiB with the pool pinned"

kill -9 "$A"
tk=$(now_ms)
serve "$LOGB" --takeover
say "A killed with -9; B started at once (+$(( $(now_ms) - tk )) ms)"
( while :; do echo "+$(( $(now_ms) - tk )) ms MemAvailable $(avail_mib) MiB"; sleep 0.5; done ) > "$OUT/restart-memavailable.txt" &
SAMPLER=$!
until_ready "$LOGB" "$PID" || { say "B exited before it was ready:"; tail -20 "$LOGB" | tee -a "$NOTE"; exit 1; }
say "B: ready $(( $(now_ms) - tk )) ms after the kill"
until_full B "$tk" || exit 1
say "B: pool full $(( $(now_ms) - tk )) ms after the kill"
kill "$SAMPLER" 2> /dev/null; SAMPLER=
say "--- B's start, from its log (takeover, memory wait, pool):"
grep -E 'takeover|journal|waiting for memory|memory available|lowered|pinned pool|listening' "$LOGB" |
  lines | tee -a "$NOTE"
say "--- MemAvailable after the kill, every 0.5 s until B's pool was full:"
tee -a "$NOTE" < "$OUT/restart-memavailable.txt"
