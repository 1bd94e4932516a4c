// The engine `cuzk serve` runs: the pipelined engine (src/engine/create.ts). The daemon programs
// only against ProvingEngine (src/engine/api.ts), so any implementation drops in here.
import type { EngineConfig, ProvingEngine } from '../engine/api.js';
import { createEngine } from '../engine/create.js';

export function startEngine(cfg: EngineConfig): Promise<ProvingEngine> {
  return createEngine(cfg);
}
