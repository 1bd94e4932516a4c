// `cuzk submit | await | prove --remote | status | cancel | keys | queue | trace`: the CLI face of CuzkClient.
// The daemon is --remote (default $CUZK_REMOTE, else 127.0.0.1:9820); --token or $CUZK_TOKEN.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CuzkClient } from '../client/client.js';
import { openUploadBody } from '../client/upload-body.js';
import { CuzkError, errorForCode, InputError, type ErrorCode } from '../errors.js';
import type { EngineStatus, JobInfo, Priority } from '../engine/api.js';
import { mib } from '../engine/budget.js';
import { looksLikeKeyPath } from '../engine/key-ref.js';
import { checkOutputPaths, printResult, writeOutput, type CliContext } from './output.js';

export const REMOTE_HELP = `usage: cuzk submit <key> <witness.wtns>... [--priority P] [--request-id ID] [--deadline-ms N] [--upload-key]
       cuzk await <job-id> [<proof.json> <public.json>] [--timeout-ms N]
       cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> --remote <addr> [--upload-key]
       cuzk status
       cuzk cancel <job-id>
       cuzk queue pause|resume
       cuzk keys [load <path> [--key-id ID] [--upload-key] | evict <id>]
       cuzk trace --seconds N <out.json>   (N 1..600: the spans that started in the daemon's last N seconds)

Talks to a \`cuzk serve\` daemon. <key> is a .zkey path on the daemon's machine when it contains
a / or ends in .zkey (a relative one is made absolute here), else a key id (\`cuzk keys load\`);
with --upload-key the local .zkey file is sent instead. Witnesses and keys are streamed from the
files here (any size: never read whole), each checked to open first, before anything is sent.
Options: --remote host:port | unix:/path   (default $CUZK_REMOTE, else 127.0.0.1:9820)
         --token T      bearer token (default $CUZK_TOKEN)
         --protocol grpc|connect (default grpc)
         --tls-ca F     TLS: the CA of the daemon's certificate (PEM); --tls-cert F --tls-key F for mTLS
         --priority critical|high|normal|low   --json   --quiet`;

function str(flags: Map<string, string | true>, name: string): string | undefined {
  const v = flags.get(name);
  if (v === true) throw new InputError('E_INVALID_ARG', `--${name} needs a value`);
  return v;
}

function int(flags: Map<string, string | true>, name: string): number | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InputError('E_INVALID_ARG', `--${name} must be a non-negative integer, got ${v}`);
  return n;
}

/** A small local file (TLS PEM) whole. */
function readLocal(file: string, what: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${file}: cannot read the ${what} (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
}

/** `file` once it opens and stats as a regular file (else one line naming it, E_INVALID_ARG):
 * the client streams it from disk when it sends it. */
async function localFile(file: string, what: string): Promise<string> {
  await (await openUploadBody({ file }, what)).close();
  return file;
}

/**
 * A key path (engine/key-ref.ts: contains a `/` or ends in .zkey) becomes absolute, since the daemon's
 * cwd is not ours; anything else is a key id and passes as is, whatever files the cwd holds.
 */
export async function keyRef(client: Pick<CuzkClient, 'loadKey'>, key: string, flags: Map<string, string | true>): Promise<string> {
  if (!flags.has('upload-key')) return looksLikeKeyPath(key) ? path.resolve(key) : key;
  return (await client.loadKey({ zkeyFile: await localFile(key, 'key') }, str(flags, 'key-id'))).id;
}

/** A failed, cancelled or expired job as the error it carries. */
function throwIfNotCompleted(job: JobInfo): void {
  if (job.state === 'completed') return;
  if (job.state === 'queued' || job.state === 'running') throw new CuzkError('E_TIMEOUT', `job ${job.id} is still ${job.state}: run \`cuzk await ${job.id}\` later`);
  const code = (job.error?.code ?? (job.state === 'cancelled' ? 'E_CANCELLED' : 'E_TIMEOUT')) as ErrorCode;
  throw errorForCode(code, `job ${job.id} ${job.state}${job.error ? `: ${job.error.message}` : ''}`);
}

function writeProofs(job: JobInfo, proofPath: string, publicPath: string): string[] {
  const proofs = job.proofs ?? [];
  const name = (p: string, i: number) => (proofs.length === 1 ? p : p.replace(/(\.json)?$/, `.${i}$1`));
  const written: string[] = [];
  proofs.forEach((p, i) => {
    writeOutput(name(proofPath, i), JSON.stringify(p.proof, null, 1), 'proof');
    writeOutput(name(publicPath, i), JSON.stringify(p.publicSignals, null, 1), 'public signals');
    written.push(name(proofPath, i), name(publicPath, i));
  });
  return written;
}

/** `pinned pool: 3.00 GiB of 32.00 GiB (growing), 2 buffers in use, 0 allocations on a proof's path`. */
function poolLine(p: EngineStatus['pinnedPool']): string {
  const size = p.targetBytes > 0 ? `${mib(p.bytes)} of ${mib(p.targetBytes)} (${p.growState})` : `${mib(p.bytes)} (allocated on demand)`;
  return `${p.enabled ? 'pinned' : 'buffer'} pool: ${size}, ${p.inUse} buffers in use, ${p.pathAllocations} allocations on a proof's path`;
}

/** `witness stage: 3 of 15 busy, 0 waiting; 120 done, 1 failed, 31 ms per witness; 15 generator processes`. */
function witnessLine(w: NonNullable<EngineStatus['witness']>): string {
  const mean = w.done > 0 ? `${(w.totalMs / w.done).toFixed(0)} ms per witness` : 'none done yet';
  return `witness stage: ${w.busy} of ${w.slots} busy, ${w.queued} waiting; ${w.done} done, ${w.failed} failed, ${mean}; ${w.processes} generator processes`;
}

const summary = (j: JobInfo) => `${j.id} ${j.state}${j.queuePosition !== undefined ? ` (queue position ${j.queuePosition})` : ''}${j.error ? `: ${j.error.code}: ${j.error.message}` : ''}`;

export async function remoteCommand(ctx: CliContext, cmd: string, args: string[], flags: Map<string, string | true>): Promise<number> {
  const protocol = str(flags, 'protocol') ?? 'grpc';
  if (protocol !== 'grpc' && protocol !== 'connect') throw new InputError('E_INVALID_ARG', `--protocol must be grpc or connect, got ${protocol}`);
  const tlsFile = (name: string) => {
    const f = str(flags, name);
    return f === undefined ? undefined : readLocal(f, name.replace('-', ' '));
  };
  const tls = ['tls-ca', 'tls-cert', 'tls-key'].some((n) => flags.has(n)) ? { ca: tlsFile('tls-ca'), cert: tlsFile('tls-cert'), key: tlsFile('tls-key') } : undefined;
  const client = new CuzkClient({ address: str(flags, 'remote') ?? process.env.CUZK_REMOTE, token: str(flags, 'token'), protocol, tls });
  const need = (n: number, usage: string) => {
    if (args.length !== n) throw new InputError('E_INVALID_ARG', `${cmd} needs ${usage}, got ${args.length} arguments\n${REMOTE_HELP}`);
  };
  const job = async (key: string, wtns: string[]) => {
    const witnesses: { file: string }[] = [];
    for (const w of wtns) witnesses.push({ file: await localFile(w, 'witness') }); // before an uploaded key is sent
    return {
      key: await keyRef(client, key, flags),
      witnesses,
      priority: str(flags, 'priority') as Priority | undefined,
      requestId: str(flags, 'request-id'),
      deadlineMs: int(flags, 'deadline-ms'),
    };
  };
  switch (cmd) {
    case 'submit': {
      if (args.length < 2) need(2, '<key> <witness.wtns>...');
      const r = await client.submit(await job(args[0]!, args.slice(1)));
      printResult(ctx, { job: r.job, deduplicated: r.deduplicated }, r.job.id);
      return 0;
    }
    case 'await': {
      if (args.length !== 1 && args.length !== 3) need(3, '<job-id> [<proof.json> <public.json>]');
      if (args.length === 3) checkOutputPaths({ proof: args[1]!, 'public signals': args[2]! });
      const j = await client.await(args[0]!, int(flags, 'timeout-ms'));
      throwIfNotCompleted(j);
      const files = args.length === 3 ? writeProofs(j, args[1]!, args[2]!) : [];
      printResult(ctx, { job: j, files }, files.length ? `${summary(j)}: wrote ${files.join(', ')}` : JSON.stringify(j.proofs, null, 1));
      return 0;
    }
    case 'prove': {
      need(4, '<circuit.zkey> <witness.wtns> <proof.json> <public.json>');
      checkOutputPaths({ proof: args[2]!, 'public signals': args[3]! });
      const j = await client.prove(await job(args[0]!, [args[1]!]), int(flags, 'timeout-ms'));
      throwIfNotCompleted(j);
      writeProofs(j, args[2]!, args[3]!);
      const ms = (j.finishedAt ?? 0) - (j.startedAt ?? j.submittedAt);
      printResult(ctx, { ok: true, job: j.id, device: j.device, timings: j.timings, proof: args[2], public: args[3] }, `proof written to ${args[2]} and ${args[3]} (verified by the daemon; job ${j.id} on ${j.device ?? '?'}, ${ms} ms)`);
      return 0;
    }
    case 'cancel': {
      need(1, '<job-id>');
      const j = await client.cancel(args[0]!);
      printResult(ctx, { job: j }, summary(j));
      return 0;
    }
    case 'status': {
      need(0, 'no arguments');
      const s = await client.status();
      const q = s.queues;
      printResult(ctx, s as unknown as Record<string, unknown>, [
        `cuzk ${s.version} (${s.backend}), up ${(s.uptimeMs / 1000).toFixed(0)} s${s.draining ? ', draining' : ''}${s.paused ? ', queue paused' : ''}`,
        `queued: critical ${q.critical}, high ${q.high}, normal ${q.normal}, low ${q.low}; running ${s.running}`,
        `totals: ${Object.entries(s.totals).map(([k, v]) => `${k} ${v}`).join(', ')}`,
        ...s.devices.map((d) => `device ${d.id}: ${d.name}, ${d.id === 'cpu' ? 'host memory budget ' : ''}${(d.memoryFree / 2 ** 30).toFixed(1)}/${(d.memoryTotal / 2 ** 30).toFixed(1)} GiB free${d.currentJob ? `, running ${d.currentJob}` : ''}${d.healthy ? '' : `, unhealthy: ${d.unhealthyReason ?? 'no reason given'}`}`),
        poolLine(s.pinnedPool),
        ...(s.witness ? [witnessLine(s.witness)] : []),
        ...s.keys.map((k) => `key ${k.id}: ${k.curve}, 2^${Math.log2(k.domainSize)} domain, ${(k.bytes / 2 ** 20).toFixed(1)} MiB (${k.residency}), ${k.users} users`),
        ...s.fleet.map((m) => `fleet ${m.id}${m.id === s.daemonId ? ' (this daemon)' : ''}: ${m.address}, ${m.backend}, ${m.devices.map((d) => d.id).join(' ')}, ${m.keys.length} keys, ${m.running.length} jobs, heartbeat ${(m.heartbeatAgeMs / 1000).toFixed(1)} s ago`),
      ].join('\n'));
      return 0;
    }
    case 'queue': {
      const [sub] = args;
      if (args.length !== 1 || (sub !== 'pause' && sub !== 'resume')) throw new InputError('E_INVALID_ARG', `queue: expected "pause" or "resume"\n${REMOTE_HELP}`);
      const s = sub === 'pause' ? await client.pauseQueue() : await client.resumeQueue();
      const queued = Object.values(s.queues).reduce((a, b) => a + b, 0);
      printResult(ctx, { paused: s.paused, queues: s.queues, running: s.running }, `queue ${s.paused ? 'paused' : 'resumed'}: ${queued} queued, ${s.running} running`);
      return 0;
    }
    case 'trace': {
      need(1, '<out.json> (and --seconds N)');
      const seconds = int(flags, 'seconds');
      if (seconds === undefined) throw new InputError('E_INVALID_ARG', `trace needs --seconds N (1..600)\n${REMOTE_HELP}`);
      checkOutputPaths({ trace: args[0]! });
      const text = await client.trace(seconds);
      writeOutput(args[0]!, text, 'trace');
      const spans = (JSON.parse(text) as { traceEvents: { ph: string }[] }).traceEvents.filter((e) => e.ph === 'X' || e.ph === 'b').length;
      printResult(ctx, { trace: args[0], seconds, spans }, `trace of the last ${seconds} s (${spans} spans) written to ${args[0]}: \`cuzk report ${args[0]} report.html\``);
      return 0;
    }
    case 'keys': {
      const [sub, arg] = args;
      if (sub === 'load' && arg) {
        const k = await client.loadKey(flags.has('upload-key') ? { zkeyFile: await localFile(arg, 'key') } : { path: arg }, str(flags, 'key-id'));
        printResult(ctx, { key: k }, `${k.id}: ${k.curve}, ${k.nVars} wires, ${(k.bytes / 2 ** 20).toFixed(1)} MiB`);
      } else if (sub === 'evict' && arg) {
        await client.evictKey(arg);
        printResult(ctx, { evicted: arg }, `${arg} evicted`);
      } else if (sub === undefined) {
        const keys = await client.listKeys();
        printResult(ctx, { keys }, keys.length ? keys.map((k) => `${k.id}\t${k.curve}\t${k.nVars} wires\t${(k.bytes / 2 ** 20).toFixed(1)} MiB\t${k.users} users`).join('\n') : 'no keys loaded');
      } else throw new InputError('E_INVALID_ARG', `keys: expected nothing, "load <path>" or "evict <id>"\n${REMOTE_HELP}`);
      return 0;
    }
    default:
      throw new InputError('E_INVALID_ARG', `unknown command ${cmd}`);
  }
}
