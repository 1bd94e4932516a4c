// `cuzk/client`: the SDK for a `cuzk serve` daemon (re-exports only). Loads no native code.
export { CuzkClient, type CuzkClientOptions, type SubmitRequest } from './client.js';
export type { DaemonStatus } from './convert.js';
export type { UploadSource } from './upload-body.js';
export { CuzkError, ERROR_CODES, type ErrorCode } from '../errors.js';
export type { JobInfo, JobEvent, JobState, KeyInfo, Priority, ProofOutput, EngineStatus } from '../engine/api.js';
