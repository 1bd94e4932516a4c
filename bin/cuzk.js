#!/usr/bin/env node
// Entry point of the `cuzk` command: the compiled CLI (dist/, built by `npm install`); see src/cli/run.ts.
await import('../dist/src/cli/run.js');
