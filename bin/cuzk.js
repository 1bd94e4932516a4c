#!/usr/bin/env node
// Entry point of the `cuzk` command: runs the compiled CLI (dist/, built by `npm install`).
// Exits explicitly: snarkjs/ffjavascript worker threads must not keep the process alive.
// Native calls run on libuv's thread pool (koffi async): each GPU keeps two proofs in phase 2 while
// synthesis, verification and file reads need threads too; the default 4 starved two GPUs (57%
// kernel utilisation on 2 H200s). Set before anything uses the pool, hence the dynamic import.
process.env.UV_THREADPOOL_SIZE ??= '32';
const { main } = await import('../dist/src/cli/main.js');

const code = await main(process.argv.slice(2));
process.exit(code);
