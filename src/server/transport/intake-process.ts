// An intake process: a child of the daemon (intake-processes.ts) that takes witness uploads off the
// main process's event loop. The main process accepts every connection; one whose first request is
// POST /v1/witnesses is handed here with the bytes already read. This process checks the token on
// the headers (nothing of the body is read before), asks the main process for the upload's checks
// and id (the key, the size, the job limit: one road, WitnessIntake.uploadKey), receives, hashes and
// spools the body (spool.ts's writer: sha256 on the way, fsynced), and hands the main process the
// file's path, size, hash and layout; only once the main process holds it is the client answered.
// One request per connection (Connection: close), so the connection never carries anything else.
import http from 'node:http';
import type net from 'node:net';
import { errorFromWire, InputError } from '../../errors.js';
import { createLogger, type Logger } from '../../log.js';
import { WitnessSpool, type SpooledWitness } from '../intake/spool.js';
import { answerEarly } from './answer-early.js';
import { tokenMatches, unauthorized } from './auth.js';
import { h1Options } from './front-door.js';
import type { FromIntake, IntakeSettings, ToIntake } from './intake-wire.js';
import { superviseBody } from './request-limits.js';
import { toConnectError } from './status-map.js';
import { WITNESS_UPLOAD_PATH, witnessUpload, type Req, type Res, type UploadIntake } from './upload-http.js';

type Reply = Extract<ToIntake, { op: 'reply' }>;

const send = (m: FromIntake) => process.send?.(m);

/** The main process's half of an upload: its checks before the body, its hold of the file after. */
class RemoteIntake implements UploadIntake {
  readonly #pending = new Map<number, (r: Reply) => void>();
  #seq = 0;
  inFlight = 0;

  constructor(private readonly spool: WitnessSpool) {}

  answer(r: Reply): void {
    this.#pending.get(r.seq)?.(r);
    this.#pending.delete(r.seq);
  }

  async #ask(m: DistributiveOmit<Extract<FromIntake, { seq: number }>, 'seq'>): Promise<Reply> {
    const seq = ++this.#seq;
    const reply = await new Promise<Reply>((resolve) => {
      this.#pending.set(seq, resolve);
      send({ ...m, seq } as FromIntake);
    });
    if (reply.error) throw errorFromWire(reply.error);
    return reply;
  }

  async upload(keyName: string, size: number, chunks: AsyncIterable<Uint8Array>, where: string): Promise<{ id: string; file: SpooledWitness }> {
    const { id, key } = await this.#ask({ op: 'begin', key: keyName, size, where });
    this.inFlight++;
    const w = this.spool.writer(key!, size, where, false, id!);
    try {
      for await (const c of chunks) await w.write(c);
      const file = await w.finish();
      await this.#ask({ op: 'stored', id: id!, file });
      return { id: id!, file };
    } catch (err) {
      await w.abort();
      send({ op: 'ended', id: id! }); // the main process removes whatever is left under this id
      throw err;
    } finally {
      this.inFlight--;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

async function serve(s: IntakeSettings, log: Logger): Promise<void> {
  const spool = new WitnessSpool(s.spoolDir, 0, log); // registers nothing: the main process keeps uploads
  const intake = new RemoteIntake(spool);
  const sockets = new Set<net.Socket>();
  const server = http.createServer(h1Options(s), (req: Req, res: Res) => {
    res.setHeader('connection', 'close');
    superviseBody(req, s.bodyTimeoutMs);
    const url = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || url !== WITNESS_UPLOAD_PATH) {
      return answerEarly(req, res, toConnectError(new InputError('E_NOT_FOUND', `no route ${req.method} ${url} on a witness upload's connection: it carries one POST ${WITNESS_UPLOAD_PATH}`)));
    }
    if (s.token && !tokenMatches(req.headers.authorization, s.token)) return answerEarly(req, res, toConnectError(unauthorized()));
    void witnessUpload(intake, req, res);
  });
  // node times headers only on a server that emitted 'listening'; this one never listens
  server.emit('listening');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    for (const socket of sockets) socket.destroy(); // uploads in flight fail and remove their files
    for (let waited = 0; intake.inFlight > 0 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    spool.close();
    process.exit(0);
  };
  process.on('message', (m: ToIntake, handle?: net.Socket) => {
    if (m.op === 'reply') return intake.answer(m);
    if (m.op === 'stop') return void stop();
    if (m.op !== 'conn' || !handle) return;
    if (stopping) return void handle.destroy();
    sockets.add(handle);
    handle.once('close', () => {
      sockets.delete(handle);
      send({ op: 'closed' });
    });
    handle.unshift(Buffer.from(m.head.buffer, m.head.byteOffset, m.head.byteLength));
    server.emit('connection', handle);
    handle.resume();
  });
  process.once('disconnect', () => void stop()); // the main process is gone: so are its uploads
  await spool.warm(); // its threads loaded now: the first upload here is not the one that waits for them
  log.debug({ spool: s.spoolDir }, 'intake process ready');
  send({ op: 'ready' });
}

// a Ctrl-C reaches the whole process group: the main process decides when this one stops ('stop',
// or its IPC channel gone), so that its uploads end as the main process's do
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => {});

process.once('message', (m: ToIntake) => {
  if (m.op === 'start') void serve(m.settings, createLogger(m.settings.logLevel));
});
