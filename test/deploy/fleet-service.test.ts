// deploy/cuzk@.service (one daemon of a PostgreSQL fleet per instance) against the CLI, deploy/ and
// the daemon's config loader: its cuzk command lines are real commands with real flags, the preflight
// checks the instance's own configuration, the data dir is the instance's StateDirectory, every
// file it names (deploy/, test/deploy/) exists, the example instance config (deploy/cuzk-fleet.toml) loads as a fleet
// configuration, every store.* setting the README names is an option, and `systemd-analyze verify`
// accepts an instance of it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadServeConfig } from '../../src/server/startup/config.js';
import { OPTIONS } from '../../src/server/startup/config-options.js';
import { checkCuzkArgv, cuzkArgv, DEPLOY, parseUnit, ROOT } from './deploy-files.js';

const NAME = 'cuzk@.service';
const UNIT = path.join(DEPLOY, NAME);
const text = readFileSync(UNIT, 'utf8');
const unit = parseUnit(text);
const one = (key: string) => {
  const v = unit.get(key);
  assert.equal(v?.length, 1, `${NAME}: ${key}= should appear once, found ${v?.length ?? 0}`);
  return v[0]!;
};
/** An Exec line as systemd runs it for instance `gpu0`. */
const instance = (line: string) => line.replaceAll('%i', 'gpu0');

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-fleet-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const token = path.join(dir, 'token');
writeFileSync(token, 'x'.repeat(32));

describe('deploy/cuzk@.service', () => {
  it('runs the preflight and the daemon with real commands and flags, each instance on its own config and data dir', async () => {
    const pre = await checkCuzkArgv(cuzkArgv(instance(one('ExecStartPre')), NAME), 'ExecStartPre');
    const start = await checkCuzkArgv(cuzkArgv(instance(one('ExecStart')), NAME), 'ExecStart');
    assert.equal(pre.command, 'doctor', `ExecStartPre runs \`cuzk ${pre.command}\`, not the preflight`);
    assert.equal(start.command, 'serve');
    for (const flag of ['config', 'data-dir']) {
      assert.ok(String(start.flags.get(flag)).includes('gpu0'), `ExecStart's --${flag} is not the instance's (no %i): instances would share it`);
      assert.equal(pre.flags.get(flag), start.flags.get(flag), `ExecStartPre's --${flag} is not ExecStart's`);
    }
    assert.equal(start.flags.get('data-dir'), path.posix.join('/var/lib', instance(one('StateDirectory'))), 'StateDirectory is not the data dir');
  });

  it('names only deploy/ files that exist, and an environment file per instance', () => {
    const named = [...text.matchAll(/(?<![\w/])((?:test\/)?deploy\/[\w.@/-]+[\w])/g)].map((m) => m[1]!);
    assert.ok(named.includes('deploy/cuzk-fleet.toml'), `${NAME} does not say which example config to install`);
    for (const f of named) assert.ok(existsSync(path.join(ROOT, f)), `${NAME} names ${f}, which does not exist`);
    assert.match(one('EnvironmentFile'), /^-\/etc\/cuzk\/%i\.env$/, 'the password ($PGPASSWORD) comes from an optional per-instance environment file');
  });

  it('stops with the drain signal within TimeoutStopSec, retries failures only, lets pinned memory be locked', () => {
    const cfg = loadServeConfig({ configPath: path.join(DEPLOY, 'cuzk-fleet.toml'), flags: new Map([['token-file', token]]), env: {} });
    assert.equal(one('KillSignal'), 'SIGTERM');
    assert.ok(Number(one('TimeoutStopSec')) * 1000 > cfg.drainTimeoutMs, 'TimeoutStopSec does not cover the drain');
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('LimitMEMLOCK'), 'infinity');
  });

  it('deploy/cuzk-fleet.toml loads as a fleet configuration: a PostgreSQL store, its lease and pool size', () => {
    const cfg = loadServeConfig({ configPath: path.join(DEPLOY, 'cuzk-fleet.toml'), flags: new Map([['token-file', token]]), env: {} });
    assert.match(cfg.storeUrl, /^postgres:\/\//);
    assert.doesNotMatch(cfg.storeUrl, /:[^/@]*@/, 'no password in the example config: it belongs in $PGPASSWORD');
    assert.equal(cfg.leaseMs, 30_000);
    assert.equal(cfg.storePoolSize, 6);
    assert.match(cfg.advertise, /^[\w.-]+:\d+$/, 'listening on 0.0.0.0, the example must advertise an address other daemons reach');
    assert.equal(cfg.witnessWaitMs, 30_000);
  });

  it('every store.* setting deploy/README.md names is an option of the daemon', () => {
    const readme = readFileSync(path.join(DEPLOY, 'README.md'), 'utf8');
    const named = new Set([...readme.matchAll(/`(store\.[a-z_]+)/g)].map((m) => m[1]!));
    for (const need of ['store.url', 'store.lease_ms', 'store.pool_size', 'store.advertise', 'store.witness_wait_ms', 'store.notify']) assert.ok(named.has(need), `deploy/README.md does not explain ${need}`);
    const known = new Set(OPTIONS.map((o) => o.toml));
    for (const k of named) assert.ok(known.has(k), `deploy/README.md names ${k}, which is no option (src/server/startup/config-options.ts)`);
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  it('passes systemd-analyze verify as an instance', { skip: analyze.status === 0 ? false : 'systemd-analyze is not installed on this machine' }, () => {
    const copy = path.join(dir, 'cuzk@gpu0.service');
    copyFileSync(UNIT, copy);
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    const own = r.stderr.split('\n').filter((l) => l.includes('cuzk@'));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(own, [], `systemd-analyze verify:\n${own.join('\n')}`);
  });
});
