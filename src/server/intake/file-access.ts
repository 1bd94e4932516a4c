// Paths that clients name are opened only inside the directories the daemon is configured to serve
// (files.key_dirs, files.input_dirs). A path's real location (symlinks resolved) must lie inside one
// of them; it is opened non-blocking without following a last symlink, so a FIFO or device cannot
// stall the event loop, and must be a regular file; the opened file's own path (/proc/self/fd) is
// checked again, so a directory swapped for a symlink between the check and the open is caught. An
// answer about a path outside the directories is the same whatever is there (nothing, a file, a
// directory): no existence, size or kind leaks.
import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';

export interface ConfinedFile {
  /** The real path (symlinks resolved) that was opened. */
  path: string;
  size: number;
  /** Open for reading; the caller closes it. */
  handle: FileHandle;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

const inside = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
};

/** Real path of `p`, or for a path that does not (all) exist, the real path of its deepest existing
 * ancestor with the rest appended: so `allowed/link-to-etc/missing` counts as outside. */
async function realLocation(p: string): Promise<{ real: string; error?: string }> {
  const abs = path.resolve(p);
  try {
    return { real: await realpath(abs) };
  } catch (err) {
    const error = (err as NodeJS.ErrnoException).code ?? 'error';
    let dir = abs;
    const rest: string[] = [];
    while (dir !== path.dirname(dir)) {
      rest.unshift(path.basename(dir));
      dir = path.dirname(dir);
      const real = await realpath(dir).catch(() => undefined);
      if (real !== undefined) return { real: path.join(real, ...rest), error };
    }
    return { real: abs, error };
  }
}

async function roots(dirs: readonly string[]): Promise<string[]> {
  return Promise.all(dirs.map((d) => realpath(path.resolve(d)).catch(() => path.resolve(d))));
}

function outside(p: string, dirs: readonly string[], what: string): InputError {
  return new InputError('E_INVALID_ARG', `${what} ${p}: not inside a directory this daemon reads ${what} files from (${dirs.join(', ') || 'none configured'}): put it there or add its directory to the daemon's configuration`);
}

/** Where the opened file is: its /proc/self/fd link (Linux), else `real` if that is still the same
 * file (device and inode); undefined when it is not. */
async function openedPath(handle: FileHandle, st: Stats, real: string): Promise<string | undefined> {
  const link = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (link !== undefined && path.isAbsolute(link)) return link.replace(/ \(deleted\)$/, '');
  const now = await stat(real).catch(() => undefined);
  return now && now.dev === st.dev && now.ino === st.ino ? real : undefined;
}

/**
 * Opens `p` for reading if its real path lies inside one of `dirs` and it is a regular file.
 * Throws InputError: E_INVALID_ARG (outside the directories, not a regular file, unreadable) or
 * E_NOT_FOUND (inside, but missing); messages name `what` and `p` as given, never the real path.
 */
export async function openConfined(p: string, dirs: readonly string[], what: string): Promise<ConfinedFile> {
  if (typeof p !== 'string' || p === '' || p.includes('\0')) throw new InputError('E_INVALID_ARG', `${what}: ${JSON.stringify(p)} is not a path`);
  const [loc, allowed] = await Promise.all([realLocation(p), roots(dirs)]);
  if (!allowed.some((r) => inside(r, loc.real))) throw outside(p, dirs, what);
  if (loc.error === 'ENOENT' || loc.error === 'ENOTDIR') throw new InputError('E_NOT_FOUND', `${what} ${p}: no such file`);
  if (loc.error) throw new InputError('E_INVALID_ARG', `${what} ${p}: cannot open (${loc.error}): the daemon's user must be able to read it`);
  let handle: FileHandle;
  try {
    handle = await open(loc.real, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError('E_NOT_FOUND', `${what} ${p}: no such file`, { cause: err });
    if (code === 'ELOOP') throw new InputError('E_INVALID_ARG', `${what} ${p}: it changed while it was opened (now a symlink): try again`, { cause: err });
    throw new InputError('E_INVALID_ARG', `${what} ${p}: cannot open (${code ?? 'error'}): the daemon's user must be able to read it`, { cause: err });
  }
  let st: Stats;
  try {
    st = await handle.stat();
  } catch (err) {
    await handle.close();
    throw new InputError('E_INVALID_ARG', `${what} ${p}: cannot stat (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  if (!st.isFile()) {
    await handle.close();
    throw new InputError('E_INVALID_ARG', `${what} ${p}: not a regular file`);
  }
  const opened = await openedPath(handle, st, loc.real);
  if (opened === undefined || !allowed.some((r) => inside(r, opened))) {
    await handle.close();
    throw outside(p, dirs, what);
  }
  return { path: opened, size: st.size, handle };
}

/** openConfined, closed again: the real path and size, for handing the path to code that opens it itself. */
export async function checkConfined(p: string, dirs: readonly string[], what: string): Promise<{ path: string; size: number }> {
  const f = await openConfined(p, dirs, what);
  await f.handle.close();
  return { path: f.path, size: f.size };
}

/** The daemon's EngineConfig.openWitness: a job's witness file is confined again when its proof
 * starts (to files.input_dirs and the spool), whatever was put at its path since submit. */
export function confinedWitnessOpener(dirs: readonly string[]): (p: string) => Promise<FileHandle> {
  return async (p) => (await openConfined(p, dirs, 'witness')).handle;
}
