// deploy/cuzk.toml is a configuration the daemon's loader (src/server/startup/config.ts) takes as it stands,
// with no unknown key, and so is every option it shows commented out (`# key = value`): an operator
// who uncomments one gets a real option.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadServeConfig } from '../../src/server/startup/config.js';
import { DEPLOY } from './deploy-files.js';

const EXAMPLE = path.join(DEPLOY, 'cuzk.toml');
const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-toml-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// token_file names /etc/cuzk/token, which the loader reads; the flag (which wins) points at a real one
const token = path.join(dir, 'token');
writeFileSync(token, 'x'.repeat(32));
const load = (configPath: string) => loadServeConfig({ configPath, flags: new Map([['token-file', token]]), env: {} });

describe('deploy/cuzk.toml', () => {
  it('loads with the daemon\'s config loader, its values taken', () => {
    const cfg = load(EXAMPLE);
    assert.equal(cfg.listen, '0.0.0.0:9820');
    assert.equal(cfg.dataDir, '/var/lib/cuzk');
    assert.equal(cfg.drainTimeoutMs, 30_000);
  });

  it('shows only real options commented out', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const commented = /^# ?([a-z_]+ = .*)$/gm;
    assert.ok([...text.matchAll(commented)].length > 0, 'no commented-out option to check');
    const uncommented = path.join(dir, 'uncommented.toml');
    writeFileSync(uncommented, text.replace(commented, '$1'));
    const cfg = load(uncommented);
    assert.equal(cfg.memoryHost, 96 * 2 ** 30);
    assert.equal(cfg.memoryPinned, 64 * 2 ** 30);
  });
});
