// The one rule for reading a job's or a request's key: a value that contains a `/` or ends in `.zkey`
// is a .zkey path, anything else a key id (from loadKey). The engine's key cache, the daemon's path
// confinement and the CLI all read keys by it, so no file on disk turns an id into a path.

/** Whether `key` names a .zkey file rather than a loaded key id. */
export const looksLikeKeyPath = (key: string): boolean => key.endsWith('.zkey') || key.includes('/');
