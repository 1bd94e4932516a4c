// The one rule for reading a job's or a request's key: a value that contains a `/` or ends in `.zkey`
// is a .zkey path, anything else a key id (from loadKey). The engine's key cache, the daemon's path
// confinement and the CLI all read keys by it, so no file on disk turns an id into a path; and
// checkKeyId keeps an id from turning a path into another key.
import { InputError } from '../errors.js';

/** Whether `key` names a .zkey file rather than a loaded key id. */
export const looksLikeKeyPath = (key: string): boolean => key.endsWith('.zkey') || key.includes('/');

/** The longest key id, and the longest key a job names (characters): PATH_MAX, what an id that is
 * its key's path needs. Every status, listing and dashboard frame carries every id. */
export const MAX_KEY_CHARS = 4096;

/** Refuses an id that is empty, too long, or that looks like a path (looksLikeKeyPath) but is not
 * `zkeyPath` itself (`samePath` decides, e.g. by real path): jobs naming that path would otherwise
 * get this key, whatever file the path holds. Throws E_INVALID_ARG; the id is quoted only when short. */
export async function checkKeyId(id: string, zkeyPath: string, samePath: (a: string, b: string) => Promise<boolean>): Promise<void> {
  if (typeof id !== 'string' || id.length === 0) throw new InputError('E_INVALID_ARG', 'key id: must be a non-empty string');
  if (id.length > MAX_KEY_CHARS) throw new InputError('E_INVALID_ARG', `key id: ${id.length} characters, at most ${MAX_KEY_CHARS}`);
  if (looksLikeKeyPath(id) && !(await samePath(id, zkeyPath))) {
    throw new InputError('E_INVALID_ARG', `key id "${id}": it looks like a path (it has a / or ends in .zkey) but is not this key's file, so a job naming that path would get this key: choose an id without / or .zkey`);
  }
}
