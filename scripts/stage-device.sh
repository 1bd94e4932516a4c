#!/usr/bin/env bash
# Stages .device/ for the GPU machine (../shared/device/stage.sh) without the packages only this
# machine needs (the TypeScript compiler, circom), so tree + Node.js + node_modules fit the 64 MiB
# copy limit. Carry dist/ with the run instead of compiling TypeScript there.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
aside=$(mktemp -d)
moved=()
for p in typescript @typescript circom2 circomlib; do
  if [ -e "node_modules/$p" ]; then mv "node_modules/$p" "$aside/"; moved+=("$p"); fi
done
restore() { for p in "${moved[@]}"; do mv "$aside/$p" node_modules/; done; rmdir "$aside"; }
trap restore EXIT
bash ../shared/device/stage.sh
du -sh .device
