// A unix socket path left by a daemon that died is removed before listening (bind refuses an existing
// path), but only once a connect to it is refused: a live daemon's socket (another data dir, the same
// --listen) is never taken from it, which would leave it running and unreachable.
import { lstat, unlink } from 'node:fs/promises';
import net from 'node:net';
import { InputError } from '../../errors.js';

/** Whether something accepts connections on the socket at `p` (ECONNREFUSED: nothing does). */
function answers(p: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(p);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'ECONNREFUSED' && err.code !== 'ENOENT'));
  });
}

/** Makes `p` free to listen on: a dead socket there is removed; a live one, or anything that is not
 * a socket, is one-line E_INVALID_ARG naming the path. */
export async function freeUnixSocketPath(p: string): Promise<void> {
  const st = await lstat(p).catch(() => undefined);
  if (!st) return;
  if (!st.isSocket()) throw new InputError('E_INVALID_ARG', `cannot listen on unix:${p}: the path exists and is not a socket: remove it or choose another`);
  if (await answers(p)) throw new InputError('E_INVALID_ARG', `cannot listen on unix:${p}: another process is listening on it (another cuzk serve?): stop it or choose another path`);
  await unlink(p).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw new InputError('E_INVALID_ARG', `cannot listen on unix:${p}: a dead socket is there and cannot be removed (${err.code ?? err.message})`, { cause: err });
  });
}
