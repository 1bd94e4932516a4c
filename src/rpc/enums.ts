// The proto enums and the engine's string unions, both ways (shared by src/server and src/client).
import { JobState, Priority } from './gen/cuzk/v1/cuzk_pb.js';

export type PriorityName = 'critical' | 'high' | 'normal' | 'low';
export type JobStateName = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'expired';

const PRIORITY: Record<PriorityName, Priority> = { critical: Priority.CRITICAL, high: Priority.HIGH, normal: Priority.NORMAL, low: Priority.LOW };
const STATE: Record<JobStateName, JobState> = {
  queued: JobState.QUEUED,
  running: JobState.RUNNING,
  completed: JobState.COMPLETED,
  failed: JobState.FAILED,
  cancelled: JobState.CANCELLED,
  expired: JobState.EXPIRED,
};

export const priorityToProto = (p: PriorityName | undefined): Priority => (p ? PRIORITY[p] : Priority.UNSPECIFIED);
/** UNSPECIFIED → undefined (the engine's default, normal); an unknown number → undefined too. */
export const priorityFromProto = (p: Priority): PriorityName | undefined => (Object.keys(PRIORITY) as PriorityName[]).find((k) => PRIORITY[k] === p);
export const stateToProto = (s: JobStateName): JobState => STATE[s];
export const stateFromProto = (s: JobState): JobStateName => (Object.keys(STATE) as JobStateName[]).find((k) => STATE[k] === s) ?? 'queued';
export const isTerminalState = (s: JobStateName): boolean => s === 'completed' || s === 'failed' || s === 'cancelled' || s === 'expired';
