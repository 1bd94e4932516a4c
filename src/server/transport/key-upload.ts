// Uploaded keys: LoadKey with the .zkey bytes (the whole file in one message), and POST
// /v1/keys?id=ID with the raw .zkey as the body (upload-http.ts), streamed to disk and
// never held whole, for keys of hundreds of MB. Either way the bytes go to a temporary file of this
// upload's own, hashed on the way, renamed to <data_dir>/keys/<sha256>.zkey (identical uploads at
// once each rename a whole copy; writing the file itself let one truncate what another read), then
// loaded under `id` (default sha256:<hex>) and journaled for restarts.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { InputError, ResourceError } from '../../errors.js';
import type { KeyInfo, ProvingEngine } from '../../engine/api.js';
import { checkKeyId } from '../../engine/key-ref.js';
import type { JobStore } from '../journal/job-store.js';
import { uploadedKeysDir, type ServeConfig } from '../startup/config.js';

/** What an upload needs of the daemon (routes.ts's RouteContext has it). */
export interface KeyUploadContext {
  cfg: Pick<ServeConfig, 'dataDir' | 'maxKeyBytes'>;
  engine: Pick<ProvingEngine, 'loadKey' | 'listKeys'>;
  store: Pick<JobStore, 'putKey'>;
}

/** Stores `size` bytes of a .zkey from `chunks` and loads it; throws E_LIMIT (over
 * limits.max_key_bytes), E_INVALID_ARG (a bad id, a body not of `size` bytes), E_UNAVAILABLE (the
 * data dir cannot take it), and what engine.loadKey throws. */
export async function loadUploadedKey(c: KeyUploadContext, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number, id: string): Promise<KeyInfo> {
  if (id) await checkKeyId(id, '', async () => false); // no path here: an id may not look like one
  if (size > c.cfg.maxKeyBytes) {
    throw new InputError('E_LIMIT', `uploaded key is ${size} bytes, more than limits.max_key_bytes ${c.cfg.maxKeyBytes} (--max-key-bytes; a key on the daemon's disk loads by path, at any size)`);
  }
  const dir = uploadedKeysDir(c.cfg);
  const tmp = path.join(dir, `upload.${process.pid}.${randomUUID()}.partial`);
  const hash = createHash('sha256');
  let file: string;
  let fresh: boolean;
  try {
    await write(dir, tmp, chunks, size, hash);
    file = path.join(dir, `${hash.digest('hex')}.zkey`);
    fresh = !existsSync(file);
    if (fresh) await rename(tmp, file).catch((e: unknown) => { throw stored(dir, e); });
  } finally {
    await rm(tmp, { force: true });
  }
  try {
    const info = await c.engine.loadKey(file, { id: id || `sha256:${path.basename(file, '.zkey')}` });
    await c.store.putKey(info.id, file);
    return info;
  } catch (err) {
    // the same bytes loaded at once under another id keep their file (an evicted key is read again from it)
    if (fresh && !c.engine.listKeys().some((k) => k.path === file)) await rm(file, { force: true });
    throw err;
  }
}

const stored = (dir: string, cause: unknown) => {
  const code = (cause as NodeJS.ErrnoException).code;
  return new ResourceError('E_UNAVAILABLE', `uploaded key: cannot store it in ${dir} (${code === 'ENOSPC' ? 'the disk is full' : code ?? String(cause)}): the daemon's operator must fix the data dir`, { cause });
};

async function write(dir: string, tmp: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number, hash: ReturnType<typeof createHash>): Promise<void> {
  let fh;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    fh = await open(tmp, 'wx', 0o600);
  } catch (e) {
    throw stored(dir, e);
  }
  try {
    let got = 0;
    for await (const chunk of chunks) {
      got += chunk.length;
      if (got > size) throw new InputError('E_INVALID_ARG', `uploaded key: more than the ${size} bytes announced`);
      hash.update(chunk);
      await fh.write(chunk).catch((e: unknown) => { throw stored(dir, e); });
    }
    if (got !== size) throw new InputError('E_INVALID_ARG', `uploaded key: ${got} bytes arrived, ${size} were announced`);
  } finally {
    await fh.close();
  }
}
