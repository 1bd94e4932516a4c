// deploy/cuzk.service against the CLI and deploy/cuzk.toml: every cuzk command line in it is a real
// command with flags from src/cli/flags.ts; the preflight (ExecStartPre, `cuzk doctor`) runs with the
// same --config and --data-dir as ExecStart; the config it names is deploy/'s example, whose data_dir
// is the unit's StateDirectory; stop is SIGTERM (the daemon's drain) with TimeoutStopSec above the
// example's drain timeout; pinned memory can be locked; and `systemd-analyze verify` accepts it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseArgv } from '../../src/cli/main.js';
import { loadServeConfig } from '../../src/server/startup/config.js';
import { checkCuzkArgv, cuzkArgv, DEPLOY, parseUnit } from './deploy-files.js';

const UNIT = path.join(DEPLOY, 'cuzk.service');

const unit = parseUnit(readFileSync(UNIT, 'utf8'));
const one = (key: string) => {
  const v = unit.get(key);
  assert.equal(v?.length, 1, `cuzk.service: ${key}= should appear once, found ${v?.length ?? 0}`);
  return v[0]!;
};

const tokenFile = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-unit-'));
  writeFileSync(path.join(dir, 'token'), 'x'.repeat(32));
  return { file: path.join(dir, 'token'), done: () => rmSync(dir, { recursive: true, force: true }) };
};

describe('deploy/cuzk.service', () => {
  it('runs the preflight and the daemon with real commands, flags and the same configuration', async () => {
    const pre = await checkCuzkArgv(cuzkArgv(one('ExecStartPre')), 'ExecStartPre');
    const start = await checkCuzkArgv(cuzkArgv(one('ExecStart')), 'ExecStart');
    assert.ok(pre.command === 'doctor' || (pre.command === 'serve' && pre.flags.has('check')), `ExecStartPre runs \`cuzk ${pre.command}\`, not the preflight (cuzk doctor)`);
    assert.equal(start.command, 'serve');
    for (const flag of ['config', 'data-dir']) {
      assert.ok(start.flags.has(flag), `ExecStart has no --${flag}`);
      assert.equal(pre.flags.get(flag), start.flags.get(flag), `ExecStartPre's --${flag} is not ExecStart's: the preflight would check another configuration`);
    }
  });

  it('names deploy/cuzk.toml as its config, whose data_dir is the unit\'s StateDirectory', () => {
    const start = parseArgv(cuzkArgv(one('ExecStart'))).flags;
    const configPath = String(start.get('config'));
    const example = path.join(DEPLOY, path.basename(configPath));
    assert.ok(existsSync(example), `ExecStart's --config ${configPath}: deploy/ has no ${path.basename(configPath)} to install there`);
    assert.equal(path.basename(configPath), 'cuzk.toml');
    const token = tokenFile();
    try {
      const cfg = loadServeConfig({ configPath: example, flags: new Map([['token-file', token.file]]), env: {} });
      assert.equal(cfg.dataDir, start.get('data-dir'), 'cuzk.toml data_dir and the unit\'s --data-dir differ');
      assert.equal(path.posix.join('/var/lib', one('StateDirectory')), cfg.dataDir, 'StateDirectory is not the data dir: systemd would create (and let the daemon write) another directory');
      const stopS = Number(one('TimeoutStopSec'));
      assert.ok(stopS * 1000 > cfg.drainTimeoutMs, `TimeoutStopSec=${stopS} s does not cover jobs.drain_timeout_ms=${cfg.drainTimeoutMs}: systemd would SIGKILL a drain`);
    } finally {
      token.done();
    }
  });

  it('stops with the drain signal, retries failures only, and lets pinned memory be locked', () => {
    assert.equal(one('KillSignal'), 'SIGTERM', 'the daemon drains on SIGTERM (src/cli/serve.ts)');
    assert.equal(one('Restart'), 'on-failure', 'a drained stop exits 0 and must not be restarted; a crash or a failed preflight must be');
    assert.equal(one('LimitMEMLOCK'), 'infinity', 'the pinned pool is page-locked memory');
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  it('passes systemd-analyze verify', { skip: analyze.status === 0 ? false : 'systemd-analyze is not installed on this machine' }, () => {
    const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    const own = r.stderr.split('\n').filter((l) => l.includes('cuzk.service'));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(own, [], `systemd-analyze verify:\n${own.join('\n')}`);
  });
});
