// GET /v1/fleet/witnesses/<job id>/<n>: the n-th witness of a job this daemon accepted and spooled,
// for the daemon of the fleet that claimed it (witness-fetch.ts). Witness bytes never go through the
// database: the row names the spool file, its size and sha256, and the claimer fetches the bytes
// here, with the token and the fleet's secret from the store (both checked in http.ts before this
// runs: a client holds the token, never the secret), and checks size and hash.
// Only a spooled file (owned, in this daemon's spool dir) of a job that has not ended is served.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { CuzkError, InputError } from '../../errors.js';
import { FLEET_WITNESS_PREFIX } from '../fleet/witness-fetch.js';
import { openConfined } from '../intake/file-access.js';
import type { RouteContext } from './routes.js';
import { sendError } from './status-map.js';
import type { Req, Res } from './upload-http.js';


export async function serveSpooledWitness(c: RouteContext, req: Req, res: Res): Promise<void> {
  try {
    const m = /^([0-9a-f-]{36})\/(\d{1,4})$/.exec((req.url ?? '').split('?')[0]!.slice(FLEET_WITNESS_PREFIX.length));
    if (req.method !== 'GET' || !m) throw new InputError('E_INVALID_ARG', `fleet witness: GET ${FLEET_WITNESS_PREFIX}<job id>/<n> expected`);
    const [, id, n] = m;
    if (!c.jobs.fleet) throw new InputError('E_NOT_FOUND', 'fleet witness: this daemon shares no queue (no PostgreSQL store)');
    const job = await c.store.get(id!);
    const file = job?.request?.witnessFiles?.[Number(n)];
    // by where the file is, not by the job's accepted_by: this daemon restarted (a new fleet id) still
    // serves what it spooled before; the claimer checks the bytes' sha256 against the row either way
    if (!job || job.result || !file?.owned || path.dirname(file.path) !== c.intake.spool.dir) {
      throw new InputError('E_NOT_FOUND', `fleet witness ${id}/${n}: no unfinished job spooled here has it`);
    }
    const f = await openConfined(file.path, [c.intake.spool.dir], `fleet witness ${id}/${n}`);
    if (f.size !== file.size) {
      await f.handle.close();
      throw new CuzkError('E_INTERNAL', `fleet witness ${id}/${n}: the spool file is ${f.size} bytes, the job names ${file.size}`);
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(f.size), 'x-cuzk-sha256': file.sha256 });
    const stream = createReadStream('', { fd: f.handle, highWaterMark: 1 << 20 });
    stream.on('error', () => res.destroy());
    stream.pipe(res as NodeJS.WritableStream);
    c.log.info({ jobId: id, witness: Number(n), bytes: f.size }, 'spooled witness served to the claiming daemon');
  } catch (err) {
    sendError(res, err);
  }
}
