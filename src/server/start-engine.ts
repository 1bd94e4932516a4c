// The engine `cuzk serve` runs. MERGE(engine): return `createEngine(cfg)` from src/engine/engine.ts
// once it lands; until then the stand-in DirectEngine (sequential, CPU or the CUDA build as loaded).
import type { EngineConfig, ProvingEngine } from '../engine/api.js';
import { setThreads } from '../ffi/native.js';
import { DirectEngine } from './direct-engine.js';

export async function startEngine(cfg: EngineConfig): Promise<ProvingEngine> {
  if (cfg.threads) setThreads(cfg.threads);
  return new DirectEngine(cfg);
}
