// The engine `cuzk serve` runs: the pipelined engine (src/engine/create.ts). The daemon programs
// only against ProvingEngine (src/engine/api.ts), so any implementation drops in here.
import type { EngineConfig, ProvingEngine } from '../../engine/api.js';
import { createEngine } from '../../engine/create.js';

let testHooks: EngineConfig['testHooks'];

/** Test-only (test/helpers/cuzk-child.ts): hooks for the engines made from here on, so a test can
 * hold a daemon's job in 'running' by construction instead of racing the machine's speed. */
export function setEngineTestHooks(hooks: EngineConfig['testHooks']): void {
  testHooks = hooks;
}

export function startEngine(cfg: EngineConfig): Promise<ProvingEngine> {
  return createEngine(testHooks ? { ...cfg, testHooks } : cfg);
}
