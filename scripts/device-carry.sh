#!/usr/bin/env bash
# Builds gpu_selftest (nvcc here: no GPU needed to compile) and the CPU core, and packs them into
# build/carry/ so a GPU-machine call can carry them (`carry: [".device", "build/carry"]`) and skip the
# build there: `bash scripts/device-check.sh selftest` then uses them. A full build takes ~6 minutes
# on 2 cores; after a change to one kernel, ~1-3. CARRY_CORE=1 packs the CUDA core (libcuzk_cuda.so,
# and libcuzk_cuda_test.so for test:gpu: the same objects, linked twice) as well, which
# `device-check.sh build` then installs instead of building. The CUDA binaries go into one solid xz
# (cuda.tar.xz, one thread, a 64 MiB dictionary): the twin libraries and the selftest share most of
# their bytes, 8.6 MB together against 21.6 packed apart, so all of them fit a call's 64 MiB carry.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
command -v nvcc >/dev/null || { echo "device-carry: nvcc is not on PATH" >&2; exit 1; }
[[ -f build/cuda/CMakeCache.txt ]] || cmake -S native -B build/cuda -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON >/dev/null
targets=(gpu_selftest)
[[ ${CARRY_CORE:-0} == 1 ]] && targets+=(cuzk_cuda cuzk_cuda_test)  # the CUDA core too: device-check.sh build then builds nothing
cmake --build build/cuda -j"$(nproc)" --target "${targets[@]}"
CUZK_CUDA=0 npm run build:native
mkdir -p build/carry
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pack() { strip -o "$tmp/lib.so" "$1" && xz -T0 -6 -c "$tmp/lib.so" > "build/carry/$(basename "$1").xz"; }
pack build/native/libcuzk_cpu.so
pack build/native/libcuzk_cpu_test.so
rm -f build/carry/gpu_selftest.xz build/carry/libcuzk_cuda.so.xz build/carry/libcuzk_cuda_test.so.xz build/carry/cuda.tar.xz
mkdir "$tmp/cuda"
strip -o "$tmp/cuda/gpu_selftest" build/cuda/tools/gpu_selftest
if [[ ${CARRY_CORE:-0} == 1 ]]; then
  strip -o "$tmp/cuda/libcuzk_cuda.so" build/cuda/libcuzk_cuda.so
  strip -o "$tmp/cuda/libcuzk_cuda_test.so" build/cuda/libcuzk_cuda_test.so
fi
tar -C "$tmp/cuda" -cf - . | xz -9 -T1 > build/carry/cuda.tar.xz
git rev-parse --short HEAD > build/carry/commit
[[ -z $(git status --porcelain -- native) ]] || echo "+ uncommitted native changes" >> build/carry/commit
ls -la build/carry
