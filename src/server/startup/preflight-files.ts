// The configuration's preflight checks (preflight.ts runs them): the listen address free (bound and
// released at once), the data dir writable (a probe file made and removed), the journal healthy (read
// read-only, so a running daemon's lock is seen, not taken; faults in journal-open.ts's words), and
// every key a daemon would load readable, with its size against the GPUs' and the host's budgets.
import { closeSync, existsSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { deviceCoefBytes, deviceScratchBytes } from '../../engine/pipeline.js';
import { ZkeyFile, zkeySectionBytes, type ZkeyHeader } from '../../formats/zkey.js';
import { checkExposure, parseListen } from '../transport/auth.js';
import { journalPath, uploadedKeysDir, type ServeConfig } from './config.js';
import { checkConfined } from '../intake/file-access.js';
import { fileProblem, journalFault, lockHolders, notWritable } from '../journal/journal-open.js';
import { gib, type Check, type GpuSeen } from './preflight.js';
import { errorMessage } from '../../errors.js';

export async function fileChecks(cfg: ServeConfig, gpus: readonly GpuSeen[], hostBudget: number): Promise<Check[]> {
  const journal = journalCheck(journalPath(cfg));
  const keys = await keyChecks(cfg, journal.keys, gpus, hostBudget);
  return [await listenCheck(cfg), dataDirCheck(cfg.dataDir), journal.check, ...keys];
}

async function listenCheck(cfg: ServeConfig): Promise<Check> {
  const check = 'listen';
  let exposure: string | undefined;
  try {
    exposure = checkExposure(parseListen(cfg.listen), cfg.token, { cert: cfg.tlsCert, clientCa: cfg.tlsClientCa });
  } catch (err) {
    return { check, status: 'fail', found: errorMessage(err) };
  }
  const addr = parseListen(cfg.listen);
  if (addr.kind === 'unix') {
    const st = existsSync(addr.path) ? lstatSync(addr.path) : undefined;
    if (st && !st.isSocket()) return { check, status: 'fail', found: `${cfg.listen}: ${addr.path} exists and is not a socket`, action: 'move it aside, or listen elsewhere' };
    if (st && (await connects(addr.path))) return { check, status: 'fail', found: `${cfg.listen}: a process is serving on this socket (another cuzk serve?)`, action: 'stop it, or listen elsewhere' };
    if (!existsSync(path.dirname(addr.path))) return { check, status: 'fail', found: `${cfg.listen}: no directory ${path.dirname(addr.path)}`, action: 'create it, or listen elsewhere' };
    return { check, status: 'ok', found: `${cfg.listen}: free${st ? ' (a stale socket file, removed at start)' : ''}` };
  }
  const bound = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const server = net.createServer();
    server.once('error', resolve);
    server.listen({ port: addr.port, host: addr.host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
  if (bound) {
    const why = bound.code === 'EADDRINUSE' ? 'the address is in use (another cuzk serve?)' : bound.code === 'EACCES' ? 'this user may not bind it (a port below 1024?)' : bound.message;
    return { check, status: 'fail', found: `cannot listen on ${cfg.listen}: ${why}`, action: 'stop what holds it (ss -ltnp names it), or set listen (--listen) to a free address' };
  }
  return exposure ? { check, status: 'warn', found: `${cfg.listen}: free; ${exposure}` } : { check, status: 'ok', found: `${cfg.listen}: free` };
}

function connects(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(socketPath, () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Writes, fsyncs and removes a probe file: the data dir (or the ancestor it would be made in) can be written. */
function dataDirCheck(dataDir: string): Check {
  const check = 'data dir';
  let dir = path.resolve(dataDir);
  while (!existsSync(dir) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  if (!statSync(dir).isDirectory()) return { check, status: 'fail', found: `${dataDir}: ${dir} is not a directory`, action: 'point --data-dir at a directory' };
  const probe = path.join(dir, `.cuzk-doctor-${process.pid}`);
  try {
    const fd = openSync(probe, 'wx', 0o600);
    try {
      writeSync(fd, 'cuzk doctor\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
  } catch (err) {
    const denied = notWritable(probe);
    return { check, status: 'fail', found: `${dir}: ${denied ?? `cannot be written (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`}`, action: denied ? undefined : 'check the disk and the file system' };
  }
  return { check, status: 'ok', found: dir === path.resolve(dataDir) ? `${dir}: writable` : `${dataDir}: does not exist yet; cuzk serve creates it in ${dir} (writable)` };
}

function journalCheck(file: string): { check: Check; keys: { id: string; path: string }[] } {
  const check = 'journal';
  const fail = (found: string) => ({ check: { check, status: 'fail' as const, found }, keys: [] });
  const st = existsSync(file) ? lstatSync(file) : undefined;
  if (!st) return { check: { check, status: 'ok', found: `${file}: none yet (cuzk serve starts a new one)` }, keys: [] };
  const problem = fileProblem(file, st);
  if (problem) return fail(`journal ${file}: ${problem}`);
  let db: Database.Database | undefined;
  try {
    // read-only where it can be; a killed daemon's journal (a -wal, no -shm) opens only read-write
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 0');
      db.pragma('schema_version');
    } catch (err) {
      db?.close();
      if ((err as { code?: string }).code !== 'SQLITE_CANTOPEN') throw err;
      db = new Database(file, { fileMustExist: true });
      db.pragma('busy_timeout = 0');
    }
    const quick = db.pragma('quick_check', { simple: true });
    if (quick !== 'ok') throw Object.assign(new Error(String(quick)), { code: 'SQLITE_CORRUPT' });
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    const counts = tables.has('jobs') ? (db.prepare("SELECT state, count(*) AS n FROM jobs GROUP BY state").all() as { state: string; n: number }[]) : [];
    const keys = tables.has('keys') ? (db.prepare('SELECT id, path FROM keys ORDER BY id').all() as { id: string; path: string }[]) : [];
    const jobs = counts.map((c) => `${c.n} ${c.state}`).join(', ') || 'no jobs';
    return { check: { check, status: 'ok', found: `${file}: healthy (${jobs}; ${keys.length} key${keys.length === 1 ? '' : 's'} registered)` }, keys };
  } catch (err) {
    const fault = journalFault(file, err, true);
    const holders = (err as { code?: string }).code?.startsWith('SQLITE_BUSY') ? lockHolders(file) : [];
    return fail(`${fault?.message ?? `journal ${file}: cannot open (${errorMessage(err)})`}${holders.length ? ` (held by pid ${holders.join(', ')})` : ''}`);
  } finally {
    db?.close();
  }
}

/** Device bytes a key takes on a GPU as native gpu_key_bytes counts them: its points (A, B1, B2, C, H;
 * device affine points are the zkey's LEM sizes), a byte per wire for A's and for B's points at
 * infinity, and its coefficients' synthesis layout, plus one proof's scratch, as pipeline.ts's lane choice. */
export function keyGpuBytes(h: ZkeyHeader): number {
  const points = (['A', 'B1', 'B2', 'C', 'H'] as const).reduce((s, n) => s + zkeySectionBytes(h, n), 0);
  return points + 2 * h.nVars + deviceCoefBytes(h.domainSize, h.nCoefs) + deviceScratchBytes(h.domainSize, h.nVars);
}

/** One key against the budgets: it must fit the host budget, and on a GPU machine some GPU's budget. */
export function keyFitCheck(keyPath: string, h: ZkeyHeader, fileBytes: number, gpus: readonly GpuSeen[], hostBudget: number): Check {
  const check = 'key';
  const need = keyGpuBytes(h);
  const found = `${keyPath}: ${h.curve}, 2^${Math.log2(h.domainSize)} domain, ${gib(fileBytes)} on disk, ${gib(need)} on a GPU (points + a proof's scratch)`;
  if (fileBytes > hostBudget) return { check, status: 'fail', found: `${found}: larger than the host budget ${gib(hostBudget)}`, action: 'raise engine.memory_host_bytes' };
  if (gpus.length === 0) return { check, status: 'ok', found: `${found}; no GPU: proved on the CPU core` };
  const fits = gpus.filter((g) => g.limitBytes >= need);
  if (fits.length === 0) {
    return { check, status: 'fail', found: `${found}: larger than every GPU's budget (${gpus.map((g) => `gpu ${g.index} ${gib(g.limitBytes)}`).join(', ')}), so it is proved on the CPU core`, action: 'use a GPU with more memory, or raise engine.memory_gpu_bytes' };
  }
  return { check, status: 'ok', found: `${found}; fits gpu ${fits.map((g) => g.index).join(', ')}` };
}

async function keyChecks(cfg: ServeConfig, registered: { id: string; path: string }[], gpus: readonly GpuSeen[], hostBudget: number): Promise<Check[]> {
  const checks: Check[] = [];
  const seen = new Set<string>();
  const inspect = (p: string, miss: Check['status'], what: string) => {
    const abs = path.resolve(p);
    if (seen.has(abs)) return;
    seen.add(abs);
    try {
      const z = ZkeyFile.open(abs);
      z.close();
      checks.push(keyFitCheck(abs, z.header, statSync(abs).size, gpus, hostBudget));
    } catch (err) {
      checks.push({ check: 'key', status: miss, found: `${what} ${abs}: ${errorMessage(err)}`, action: miss === 'fail' ? 'fix the path (cuzk serve would not start)' : 'jobs naming it will fail: load it again or remove it' });
    }
  };
  for (const p of cfg.preload) inspect(p, 'fail', 'preload key');
  const uploads = path.resolve(uploadedKeysDir(cfg));
  const reloadDirs = [...cfg.keyDirs, uploads];
  for (const k of registered) {
    const confined = await checkConfined(k.path, reloadDirs, 'key').catch((err: Error) => err);
    if (confined instanceof Error) checks.push({ check: 'key', status: 'warn', found: `registered key ${k.id}: ${confined.message}`, action: 'jobs naming it will fail: load it again or remove it' });
    else inspect(confined.path, 'warn', `registered key ${k.id}`);
  }
  for (const dir of [...new Set(reloadDirs)]) {
    if (!existsSync(dir)) {
      const configured = dir !== uploads;
      checks.push({ check: 'key dir', status: configured ? 'warn' : 'ok', found: `${dir}: does not exist${configured ? '' : ' yet (no keys uploaded)'}`, action: configured ? 'create it, or fix files.key_dirs' : undefined });
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.zkey'));
    } catch (err) {
      checks.push({ check: 'key dir', status: 'fail', found: `${dir}: cannot be read (${(err as NodeJS.ErrnoException).code})`, action: 'fix its owner or mode' });
      continue;
    }
    checks.push({ check: 'key dir', status: 'ok', found: `${dir}: ${names.length} .zkey file${names.length === 1 ? '' : 's'}` });
    for (const n of names) inspect(path.join(dir, n), 'warn', 'key');
  }
  return checks;
}
