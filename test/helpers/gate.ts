// A gate for daemon children (test/helpers/cuzk-child.ts, CUZK_TEST_GATE): while its file exists,
// every proof waits before its device phase, so a job is 'running' for as long as the test wants.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { CuzkClient } from '../../src/client/index.js';

export interface Gate {
  /** Environment for startDaemon: the child's proofs hold at the gate while it is closed. */
  env: NodeJS.ProcessEnv;
  close(): void;
  open(): void;
  remove(): void;
  /** Resolves once a proof waits at the gate: its job is in a daemon's engine, not only claimed. */
  untilHeld(timeoutMs?: number): Promise<void>;
}

const made: Gate[] = [];
after(() => {
  for (const g of made.splice(0)) g.remove();
});

/** A closed gate, removed after the test file. */
export function makeGate(): Gate {
  const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-gate-'));
  const file = path.join(dir, 'closed');
  const g: Gate = {
    env: { CUZK_TEST_GATE: file },
    close: () => writeFileSync(file, ''),
    open: () => rmSync(file, { force: true }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
    untilHeld: async (timeoutMs = 30_000) => {
      const t0 = Date.now();
      while (!existsSync(`${file}.held`)) {
        if (Date.now() - t0 > timeoutMs) throw new Error(`no proof reached the gate within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
  g.close();
  made.push(g);
  return g;
}

/** Resolves once the job is 'running' (it was dispatched; a closed gate keeps it there). */
export async function untilRunning(c: CuzkClient, jobId: string): Promise<void> {
  for (;;) {
    const j = await c.await(jobId, 0);
    if (j.state === 'running') return;
    if (j.state !== 'queued') throw new Error(`job ${jobId} is ${j.state}, expected it to be running`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
