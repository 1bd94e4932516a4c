#!/usr/bin/env bash
# On the GPU machine (issue 12: "the dashboard of a loaded daemon shows the GPU lane busy >= 95%"):
# the daemon bench as issue 9 ran it (a `cuzk serve` child, 10 SDK clients, gRPC then Connect) with
# --dashboard-capture: the daemon's dashboard frame fetched every second of each protocol's window.
# The machine has no browser: draw the frames on a machine with Chromium with
#   node --import tsx scripts/dashboard-replay.mjs dashboard-connect.json dashboard.png
# Writes to $OUT: build.log, bench.log, dashboard-grpc.json, dashboard-connect.json, RESULTS.md.
# Usage there: source .device/boot.sh && bash scripts/dashboard-capture.sh
#   SIZE=20 JOBS=300 CLIENTS=10 (defaults); SKIP_BUILD=1 skips the CUDA build (a warm machine has it)
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export CUZK_LOG=${CUZK_LOG:-warn}
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  t0=$(date +%s)
  CUZK_CUDA=1 npm run build:native > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  echo "build: $(( $(date +%s) - t0 )) s"
fi
[[ -f build/native/libcuzk_cuda.so ]] || { echo "build/native/libcuzk_cuda.so is missing: the CUDA core did not build (see $OUT/build.log)"; exit 1; }
# 300 jobs: a window of ~19 s at ~16 proofs/s, so the last frame's last 10 s are all under load
timeout 480 npm run bench -- engine --size "${SIZE:-20}" --jobs "${JOBS:-300}" --warmup 10 --remote self --clients "${CLIENTS:-10}" \
  --dashboard-capture "$OUT" > "$OUT/bench.log" 2>&1
echo "bench exit $?"
cp bench/RESULTS.md "$OUT/RESULTS.md"
tail -16 "$OUT/bench.log"
# what the frames say, by the page's rule (static/dashboard/charts.js recentBusy); the replay reads the page itself
for f in "$OUT"/dashboard-*.json; do
  node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const busy = (f) => { const w = f.series.t.filter((t) => t + 1000 <= f.at).length;
      return f.series.busy.map((b) => { const ys = b.y.slice(Math.max(0, w - 10), w); return `${b.lane} ${(100 * ys.reduce((a, y) => a + y, 0) / Math.max(1, ys.length)).toFixed(1)}%`; }).join(" "); };
    console.log(`${process.argv[1]}: ${d.frames.length} frames (${d.fetched} fetched)${d.problems.length ? ", problems: " + d.problems.join("; ") : ""}`);
    d.frames.forEach((f, i) => console.log(`  frame ${i + 1}: last 10 s busy ${busy(f)}`));
  ' "$f"
done
ls -l "$OUT"
