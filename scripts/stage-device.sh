#!/usr/bin/env bash
# Stages .device/ for the GPU machine (../shared/device/stage.sh) without the packages only this
# machine needs (the TypeScript compiler, circom), so tree + Node.js + node_modules fit the 64 MiB
# copy limit. Carry dist/ with the run instead of compiling TypeScript there.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
aside=$(mktemp -d)
moved=()
# compilers, code generators and build leftovers; the run needs none of them
for p in playwright-core typescript @typescript circom2 circomlib @bufbuild/buf @bufbuild/buf-linux-x64 @bufbuild/protoplugin wasmcurves/test @types \
         better-sqlite3/deps better-sqlite3/build/Release/obj better-sqlite3/build/Release/obj.target better-sqlite3/build/Release/sqlite3.a; do
  if [ -e "node_modules/$p" ]; then mkdir -p "$aside/$(dirname "$p")"; mv "node_modules/$p" "$aside/$p"; moved+=("$p"); fi
done
restore() { for p in "${moved[@]}"; do mv "$aside/$p" "node_modules/$p"; done; rm -rf "$aside"; }
trap restore EXIT
bash ../shared/device/stage.sh
du -sh .device
