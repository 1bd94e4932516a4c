// The `cuzk` process: runs main() on argv and exits with its status (bin/cuzk.js loads the compiled
// copy; `cuzk bench --remote self` starts its `cuzk serve` child with this file, compiled or not).
// Exits explicitly: snarkjs/ffjavascript worker threads must not keep the process alive.
// Native calls run on libuv's thread pool (koffi async): each GPU keeps two proofs in phase 2 while
// synthesis, verification and file reads need threads too; the default 4 starved two GPUs (57%
// kernel utilisation on 2 H200s). Set before anything uses the pool, hence the dynamic import.
process.env.UV_THREADPOOL_SIZE ??= '32';
const { main } = await import('./main.js');

process.exit(await main(process.argv.slice(2)));
