// What one job needs of a daemon's memory budget, journaled with the job so that a daemon sharing a
// PostgreSQL queue claims only jobs that fit what it has free (pg-claims.ts). The same byte counts the
// engine reserves when it runs a partition (src/engine/pipeline.ts): the witness and A‖B buffers
// (pinned), the CPU core's scratch (host) or one GPU's scratch, plus the key itself where the daemon
// does not hold it yet. It is one partition's need: the claim admits a job that can start; the
// engine's own budget (src/engine/budget.ts) holds further partitions back until they fit.
import { cpuScratchBytes, deviceScratchBytes } from '../../engine/pipeline.js';
import type { MemoryNeed } from '../journal/job-store.js';
import type { KeySize } from '../intake/witness-intake.js';

export function jobNeed(key: KeySize & { nVars: number }): MemoryNeed {
  return {
    host: cpuScratchBytes(key.domainSize),
    pinned: key.nVars * 32 + 2 * key.domainSize * 32,
    gpu: deviceScratchBytes(key.domainSize, key.nVars),
    key: key.bytes,
  };
}
