// `cuzk` as a child process from the TypeScript sources (tsx), for tests that need a real daemon
// process (signals, kill -9, restarts): node --import tsx test/helpers/cuzk-child.ts serve ...
// With CUZK_TEST_GATE=<file>, every proof waits before its device phase while that file exists
// (test/helpers/gate.ts): a job stays 'running' until the test removes the file, or is stopped.
import { existsSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { setEngineTestHooks } from '../../src/server/start-engine.js';

const gate = process.env.CUZK_TEST_GATE;
if (gate) {
  setEngineTestHooks({
    beforeDevicePhase: async (_at, signal) => {
      while (existsSync(gate) && !signal.aborted) await new Promise((r) => setTimeout(r, 5));
    },
  });
}

process.exit(await main(process.argv.slice(2)));
