// The content hash (sha256) of a proving key's file, the name a job of a shared queue carries for its
// key beside the id or path: the daemon that accepts the job hashes its copy, and a daemon that claims
// it hashes its own and refuses the job when they differ (two machines with different files under one
// name would otherwise prove against different keys). A file is hashed once (streamed, so a large key
// never stalls the event loop) and the hash kept while its size and mtime stay the same.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

interface Known {
  size: number;
  mtimeMs: number;
  hash: Promise<string>;
}

export class KeyHashes {
  readonly #known = new Map<string, Known>();

  /** The sha256 (hex) of the file at `file`. */
  async of(file: string): Promise<string> {
    const st = await stat(file);
    const k = this.#known.get(file);
    if (k && k.size === st.size && k.mtimeMs === st.mtimeMs) return k.hash;
    const hash = hashFile(file);
    this.#known.set(file, { size: st.size, mtimeMs: st.mtimeMs, hash });
    hash.catch(() => this.#known.delete(file));
    return hash;
  }
}

function hashFile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file, { highWaterMark: 1 << 20 })
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
