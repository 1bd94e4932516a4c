// The `cuzk` process: runs main() on argv and exits with its status (bin/cuzk.js loads the compiled
// copy; `cuzk bench --remote self` starts its `cuzk serve` child with this file, compiled or not).
// Exits explicitly: snarkjs/ffjavascript worker threads must not keep the process alive.
// Native calls run on libuv's thread pool (koffi async): each GPU keeps two proofs in phase 2 while
// synthesis, verification and file reads need threads too; the default 4 starved two GPUs (57%
// kernel utilisation on 2 H200s). Set before anything uses the pool, hence the dynamic import.
import module from 'node:module';
import { exitMode, quickExitAllowed, quickExitPlanned } from '../ffi/core-state.js';

process.env.UV_THREADPOOL_SIZE ??= '32';
// Node >= 22.1 keeps V8's compiled code of every module on disk (os.tmpdir()/node-compile-cache, or
// NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a later process skips the parse
// and compile of the modules this one loaded. Node 20 has no such call; it just compiles.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import('./main.js');

const status = await main(process.argv.slice(2));
// A one-shot proof that opened the CUDA build ends once its output is written (stdout and stderr are
// synchronous for files, pipes and terminals on Linux; anything still queued is drained first),
// without the CUDA runtime's teardown and, by default, with the kernel's release of its memory, pins
// and context left to after the end (core-state.ts exitMode: 100-140 ms of a `cuzk prove` process on
// an H100 went to them). CUZK_EXIT=normal keeps the normal exit, CUZK_EXIT=now the release before it.
if (quickExitAllowed() && quickExitPlanned()) {
  for (const s of [process.stdout, process.stderr]) if (s.writableLength > 0) await new Promise((r) => s.once('drain', r));
  (await import('../ffi/native.js')).exitNow(status, { deferTeardown: exitMode() === 'deferred' });
}
process.exit(status);
