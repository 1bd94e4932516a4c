#!/usr/bin/env node
// Entry point of the `cuzk` command: runs the compiled CLI (dist/, built by `npm install`).
// Exits explicitly: snarkjs/ffjavascript worker threads must not keep the process alive.
import { main } from '../dist/src/cli/main.js';

const code = await main(process.argv.slice(2));
process.exit(code);
