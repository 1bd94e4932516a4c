// How the engine opens a job's witness file when its proof starts: on libuv's threads, not the event
// loop, and non-blocking, so a FIFO or device put where the file was returns at once and is refused
// as not a regular file (the reader checks) instead of holding the process in the kernel.
// EngineConfig.openWitness replaces it: the daemon's also confines the file to its directories.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../errors.js';

/** Opens `path` for reading; `name` (the job's witness) starts any error message. The caller owns the
 * handle. Throws InputError: E_NOT_FOUND (missing), E_INVALID_ARG (anything else). */
export type WitnessOpener = (path: string, name: string) => Promise<FileHandle>;

export const openWitnessFile: WitnessOpener = async (path, name) => {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'E_NOT_FOUND' : 'E_INVALID_ARG', `${name} ${path}: cannot open (${code ?? 'error'})`, { cause: err });
  }
};
