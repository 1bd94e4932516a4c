#!/usr/bin/env bash
# Stages .device/ for the GPU machine (the layout of ../shared/device/stage.sh: Node.js, node_modules,
# boot.sh) without the packages only this machine needs (compilers, code generators, test browsers,
# build leftovers), so tree + Node.js + node_modules fit the 64 MiB a call may carry. node_modules is
# packed with tar excludes, never moved: other work in this checkout keeps using it meanwhile.
# Carry dist/ with the run instead of compiling TypeScript there. CIRCOM=1 keeps circom2 (the
# compiler, as WASI) and circomlib, for circuits compiled on the GPU machine.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
mkdir -p .device
shared=$(cd ../shared/device 2>/dev/null && pwd || true)
[[ -n $shared && -f $shared/boot.sh ]] || { echo "stage-device: ../shared/device/boot.sh not found" >&2; exit 1; }

ver=$(node --version)
if [[ ! -f .device/node-$ver.tar.xz ]]; then
  rm -f .device/node-*.tar.xz
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  tmp=$(mktemp -d)
  mkdir -p "$tmp/nodejs/bin" "$tmp/nodejs/lib/node_modules"
  cp "$(readlink -f "$(command -v node)")" "$tmp/nodejs/bin/node"
  cp -r "$npm_dir" "$tmp/nodejs/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/nodejs/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/nodejs/bin/npx"
  tar -C "$tmp" -cf - nodejs | xz -T0 -9 > ".device/node-$ver.tar.xz"
  rm -rf "$tmp"
fi

# what a run on the GPU machine never loads
skip=(.cache playwright-core typescript @typescript @bufbuild/buf @bufbuild/buf-linux-x64 @bufbuild/protoplugin
      @bufbuild/protoc-gen-es wasmcurves/test @types
      better-sqlite3/deps better-sqlite3/src better-sqlite3/build/Release/obj better-sqlite3/build/Release/obj.target
      better-sqlite3/build/Release/sqlite3.a better-sqlite3/build/Release/test_extension.node)
[[ ${CIRCOM:-0} == 1 ]] || skip+=(circom2 circomlib)
[[ ${LEAN:-0} == 1 ]] && skip+=(esbuild @esbuild tsx)  # LEAN=1: only bin/cuzk.js over dist/ (no tsx: no npm test, no npm run bench)
excludes=()
for p in "${skip[@]}"; do excludes+=("--exclude=node_modules/$p"); done
stamp=$( { cat package-lock.json; printf '%s\n' "${skip[@]}"; find -L node_modules -maxdepth 3 -printf '%P %s\n' 2>/dev/null | sort; } | sha256sum | cut -c1-16)
if [[ ! -f .device/modules-$stamp.tar.xz ]]; then
  rm -f .device/modules-*.tar.xz
  # node_modules may be a link to another checkout's: -h packs what it points at
  tar -chf - "${excludes[@]}" node_modules | xz -T0 -6 > ".device/modules-$stamp.tar.xz"
fi
cp "$shared/boot.sh" .device/boot.sh
echo "staged: $(du -sh .device | cut -f1) in .device (the whole carried tree must stay under 64 MiB)"
ls -la .device
