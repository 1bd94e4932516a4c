// `cuzk serve` configuration: defaults, TOML, flags over TOML, $CUZK_TOKEN, errors naming the key,
// --print-config, and every option in the table having a reader (shared/style.md §7).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { CuzkError, InputError } from '../../src/errors.js';
import { OPTIONS } from '../../src/server/startup/config-options.js';
import { defaultConfig, loadServeConfig, printConfig, toEngineConfig } from '../../src/server/startup/config.js';
import { runCli } from '../helpers/capture.js';
import { useTmpDir } from '../helpers/tmp.js';

const tmp = useTmpDir('cuzk-config-');

function toml(text: string): string {
  const p = path.join(tmp(), 'cuzk.toml');
  writeFileSync(p, text);
  return p;
}

describe('serve config', () => {
  it('zero config: localhost, no token, engine defaults left to detection', () => {
    const c = loadServeConfig({ env: {} });
    assert.equal(c.listen, '127.0.0.1:9820');
    assert.equal(c.token, '');
    assert.equal(c.dataDir, path.join(os.homedir(), '.cuzk'));
    assert.deepEqual(c.keyDirs, [path.join(os.homedir(), '.cuzk', 'keys')]);
    assert.deepEqual(c.inputDirs, [path.join(os.homedir(), '.cuzk', 'inputs')]);
    const dirs = loadServeConfig({ env: {}, flags: new Map([['key-dirs', '/k1,rel/k2'], ['input-dirs', '~/in'], ['data-dir', '/d']]) });
    assert.deepEqual(dirs.keyDirs, ['/k1', path.resolve('rel/k2')]);
    assert.deepEqual(dirs.inputDirs, [path.join(os.homedir(), 'in')]);
    const e = toEngineConfig(c);
    assert.deepEqual(e.memory, {});
    assert.equal(e.backend, 'auto');
    assert.equal(e.maxQueue, 1024);
  });

  it('TOML, then $CUZK_TOKEN, then flags', () => {
    const file = toml('listen = "127.0.0.1:7000"\ntoken = "from-file"\n[engine]\nmax_queue = 5\nverify = false\n[jobs]\npreload_keys = ["/a.zkey", "/b.zkey"]\n[limits]\nmax_message_bytes = 1000\nmax_key_bytes = 5000\n');
    const c = loadServeConfig({ configPath: file, env: { CUZK_TOKEN: 'from-env' }, flags: new Map<string, string | true>([['max-queue', '9'], ['listen', 'unix:/tmp/x.sock']]) });
    assert.equal(c.listen, 'unix:/tmp/x.sock');
    assert.equal(c.token, 'from-env');
    assert.equal(c.maxQueue, 9);
    assert.equal(c.verify, false);
    assert.deepEqual(c.preload, ['/a.zkey', '/b.zkey']);
    assert.equal(c.maxKeyBytes, 5000, 'POST /v1/keys streams a key: the message limit bounds only LoadKey messages');
    const tf = path.join(tmp(), 'token');
    writeFileSync(tf, 'secret-from-file\n');
    assert.equal(loadServeConfig({ env: {}, flags: new Map([['token-file', tf]]) }).token, 'secret-from-file');
  });

  it('log level: TOML, then $CUZK_LOG, then --log-level; a $CUZK_LOG that is no level is passed over', () => {
    const file = toml('log_level = "error"\n');
    assert.equal(loadServeConfig({ configPath: file, env: {} }).logLevel, 'error');
    assert.equal(loadServeConfig({ configPath: file, env: { CUZK_LOG: 'debug' } }).logLevel, 'debug');
    assert.equal(loadServeConfig({ configPath: file, env: { CUZK_LOG: 'debug' }, flags: new Map([['log-level', 'warn']]) }).logLevel, 'warn');
    assert.equal(loadServeConfig({ configPath: file, env: { CUZK_LOG: 'loud' } }).logLevel, 'error');
  });

  it('errors name the option', () => {
    const bad = (f: () => unknown, re: RegExp) => assert.throws(f, (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG' && re.test(e.message));
    bad(() => loadServeConfig({ configPath: toml('[engine]\nmax_qeue = 5\n'), env: {} }), /unknown option "engine.max_qeue"/);
    bad(() => loadServeConfig({ configPath: toml('[engine]\nmax_queue = "many"\n'), env: {} }), /engine.max_queue must be an integer 1\.\.10000000/);
    bad(() => loadServeConfig({ configPath: toml('listen = \n'), env: {} }), /cuzk.toml: /);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['backend', 'tpu']]) }), /backend must be auto, cpu or cuda/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['memory-wait-policy', 'wait']]) }), /^engine\.memory_wait_policy must be start or exit, got "wait"$/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['verify', 'maybe']]) }), /engine.verify must be true or false/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['tls-cert', 'c.pem']]) }), /tls.cert and tls.key go together/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['tls-client-ca', 'ca.pem']]) }), /tls.client_ca \(mTLS\) needs tls.cert/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['store-notify', 'sometimes']]) }), /^store\.notify must be auto, on or off, got "sometimes"$/);
    for (const v of ['0', '65', 'many']) bad(() => loadServeConfig({ env: {}, flags: new Map([['intake-processes', v]]) }), new RegExp(`^limits\\.intake_processes must be auto, off or 1\\.\\.64, got "${v}"$`));
    assert.equal(loadServeConfig({ env: {}, flags: new Map([['intake-processes', '3']]) }).intakeProcesses, '3');
    bad(() => loadServeConfig({ env: {}, flags: new Map([['store-pool-size', '0']]) }), /^--store-pool-size: store\.pool_size must be an integer 1\.\.65535, got "0"$/);
    // bounds: timers past 2^31 - 1 ms would fire at once, a zero TTL would delete every upload at once
    bad(() => loadServeConfig({ env: {}, flags: new Map([['upload-ttl-s', '2147484']]) }), /limits\.upload_ttl_s must be an integer 1\.\.2147483, got "2147484"/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['upload-ttl-s', '0']]) }), /limits\.upload_ttl_s must be an integer 1\.\.2147483/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['headers-timeout-ms', '3000000000']]) }), /limits\.headers_timeout_ms must be an integer 0\.\.2147483647/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['max-message-bytes', '0']]) }), /limits\.max_message_bytes must be an integer 1\.\.4294967295/);
    // an uploaded key is streamed to disk (POST /v1/keys): a 2^25 .zkey is tens of GB, past any message
    assert.equal(loadServeConfig({ env: {}, flags: new Map([['max-key-bytes', String(64 * 2 ** 30)]]) }).maxKeyBytes, 64 * 2 ** 30);
    bad(() => loadServeConfig({ configPath: toml('[engine]\nthreads = 100000\n'), env: {} }), /engine\.threads must be an integer 0\.\.4096, got 100000/);
    bad(() => loadServeConfig({ env: {}, flags: new Map([['advertise', 'http://gpu0:9820']]) }), /^store\.advertise must be host:port \(how the other daemons reach this one\), got "http:\/\/gpu0:9820"$/);
  });

  it('--print-config is TOML that reads back to the same configuration (token redacted)', async () => {
    const c = loadServeConfig({ env: {}, flags: new Map([['max-queue', '7'], ['token', 'tok']]) });
    const text = printConfig(c);
    assert.match(text, /token = "<redacted>"/);
    const back = loadServeConfig({ configPath: toml(text.replace('<redacted>', 'tok')), env: {} });
    assert.deepEqual(back, c);
    const r = await runCli(['serve', '--print-config', '--max-queue', '3', '--data-dir', tmp()]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((parseToml(r.stdout) as { engine: { max_queue: number } }).engine.max_queue, 3);
  });

  it('store.url (TOML) and --store: a postgres:// URL, checked at load; --print-config hides its password', () => {
    assert.equal(loadServeConfig({ env: {} }).storeUrl, '', 'absent: the SQLite journal');
    const c = loadServeConfig({ configPath: toml('[store]\nurl = "postgres://cuzk:pw@db.local:5433/jobs"\n'), env: {} });
    assert.equal(c.storeUrl, 'postgres://cuzk:pw@db.local:5433/jobs');
    assert.equal(loadServeConfig({ env: {}, flags: new Map([['store', 'postgres://a@b/c']]) }).storeUrl, 'postgres://a@b/c');
    const text = printConfig(c);
    assert.match(text, /\[store\]\nurl = "postgres:\/\/cuzk@db.local:5433\/jobs"/);
    assert.ok(!text.includes('pw'), text);
    assert.throws(() => loadServeConfig({ env: {}, flags: new Map([['store', 'mysql://u:secret@h/db']]) }), (e: Error) => e instanceof InputError && /^store mysql:\/\/u@h\/db: not a postgres:\/\/ URL/.test(e.message));
    assert.throws(() => loadServeConfig({ env: {}, flags: new Map([['store', 'postgres://u@h']]) }), /store postgres:\/\/u@h: names no host or no database/);
  });

  it('every option has a reader, a flag and a documented default', () => {
    const defaults = defaultConfig() as unknown as Record<string, unknown>;
    for (const o of OPTIONS) {
      assert.ok(o.name in defaults, o.name);
      assert.ok(o.doc.length > 10, `${o.name} is documented`);
      const v = o.type === 'bool' ? String(!o.default) : o.type === 'int' ? String(Math.max(o.min ?? 0, Math.min(o.max ?? 12345, 12345))) : o.type === 'list' ? 'x.zkey' : o.name === 'backend' ? 'cpu' : o.name === 'logLevel' ? 'warn' : o.name === 'tokenFile' ? '' : o.name === 'storeUrl' ? 'postgres://u@h/db' : o.name === 'advertise' ? 'gpu0:9820' : o.name === 'memoryWaitPolicy' ? 'exit' : o.name === 'storeNotify' ? 'off' : o.name === 'intakeProcesses' ? 'off' : 'v';
      const flags = new Map([[o.flag, v]]);
      if (o.flag.startsWith('tls-')) for (const f of ['tls-cert', 'tls-key']) if (!flags.has(f)) flags.set(f, 'x.pem'); // they go together
      const c = loadServeConfig({ env: {}, flags }) as unknown as Record<string, unknown>;
      if (o.name !== 'tokenFile') assert.notDeepEqual(c[o.name], defaults[o.name], `--${o.flag} is read`);
    }
  });
});
