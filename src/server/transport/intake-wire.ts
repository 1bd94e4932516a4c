// The messages between the daemon's main process and its intake processes (intake-processes.ts,
// intake-process.ts), over the fork's IPC channel with advanced serialization (bigints and bytes as
// they are). Witness bytes never cross it: an intake process spools them and sends a file reference.
import type { WireError } from '../../errors.js';
import type { LogLevel } from '../../log.js';
import type { KeyShape, SpooledWitness } from '../intake/spool.js';
import type { ServeConfig } from '../startup/config.js';

/** What an intake process needs of the daemon's configuration. */
export type IntakeSettings = Pick<ServeConfig, 'token' | 'headersTimeoutMs' | 'idleTimeoutMs' | 'bodyTimeoutMs' | 'maxConnections' | 'maxStreams'> & {
  spoolDir: string;
  logLevel: LogLevel;
};

/** Main process to intake process. `conn` carries a connection's socket as the IPC handle, and the
 * bytes the main process read from it to see what it is (the request line, often more). */
export type ToIntake =
  | { op: 'start'; settings: IntakeSettings }
  | { op: 'conn'; head: Uint8Array }
  | { op: 'reply'; seq: number; error?: WireError; id?: string; key?: KeyShape }
  | { op: 'stop' };

/** Intake process to main process. `begin` asks for an upload's checks (key, size, limits) and its
 * id before a byte of its body is read; `stored` hands over a file fsynced under that id; `ended`
 * says an upload begun was given up (its file, if any, is the main process's to remove); `closed`
 * counts a connection handed over that has closed. */
export type FromIntake =
  | { op: 'ready' }
  | { op: 'begin'; seq: number; key: string; size: number; where: string }
  | { op: 'stored'; seq: number; id: string; file: SpooledWitness }
  | { op: 'ended'; id: string }
  | { op: 'closed' };

/** Intake processes running, and the uploads they stored and those bytes since start (GetStatus). */
export interface IntakeStats {
  processes: number;
  uploads: number;
  bytes: number;
}
