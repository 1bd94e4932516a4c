// `cuzk` as a child process from the TypeScript sources (tsx), for tests that need a real daemon
// process (signals, kill -9, restarts): node --import tsx test/helpers/cuzk-child.ts serve ...
// With CUZK_TEST_GATE=<file>, every proof waits before its device phase while that file exists
// (test/helpers/gate.ts): a job stays 'running' until the test removes the file, or is stopped; a
// proof that reaches the gate first writes <file>.held, so a test can wait until the engine holds it.
// With CUZK_TEST_POOL_GATE=<dir>, the pinned pool's background growth adds chunk i only once
// <dir>/chunk-<i> exists: a test lets the pool grow one chunk at a time.
// With CUZK_TEST_MEMINFO=<file>, `cuzk serve`'s memory-aware start reads that file (meminfo's format)
// instead of /proc/meminfo, at every poll: a test raises MemAvailable by rewriting it.
// With CUZK_TEST_FAIL_NEXT=<code>[:<calls>] (E_DEVICE_LOST, E_DEVICE_OOM; calls default 1), the
// native hook cuzk_debug_fail_next is armed before the first proof's device phase: the next <calls>
// prove calls fail with that code.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { ErrorCode } from '../../src/errors.js';
import { debugFailNext } from '../../src/ffi/native.js';
import { setMeminfoSource } from '../../src/server/startup/memory-wait.js';
import { readMeminfo } from '../../src/server/startup/preflight.js';
import { setEngineTestHooks } from '../../src/server/startup/start-engine.js';

const gate = process.env.CUZK_TEST_GATE;
const poolGate = process.env.CUZK_TEST_POOL_GATE;
const hooks: Parameters<typeof setEngineTestHooks>[0] = {};
if (gate) {
  hooks.beforeDevicePhase = async (_at, signal) => {
    if (existsSync(gate)) writeFileSync(`${gate}.held`, '');
    while (existsSync(gate) && !signal.aborted) await new Promise((r) => setTimeout(r, 5));
  };
}
if (poolGate) {
  hooks.beforePoolChunk = async ({ index }) => {
    while (!existsSync(path.join(poolGate, `chunk-${index}`))) await new Promise((r) => setTimeout(r, 5));
  };
}
const failNext = process.env.CUZK_TEST_FAIL_NEXT;
if (failNext) {
  const [code, calls] = failNext.split(':');
  const before = hooks.beforeDevicePhase;
  let armed = false;
  hooks.beforeDevicePhase = async (at, signal) => {
    if (!armed) {
      armed = true;
      debugFailNext(code as ErrorCode, calls === undefined ? 1 : Number(calls));
    }
    await before?.(at, signal);
  };
}
if (gate || poolGate || failNext) setEngineTestHooks(hooks);

const meminfo = process.env.CUZK_TEST_MEMINFO;
if (meminfo) setMeminfoSource(() => readMeminfo(readFileSync(meminfo, 'utf8')));

process.exit(await main(process.argv.slice(2)));
