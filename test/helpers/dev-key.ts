// A dev circuit big enough that one proof takes a noticeable time (2^13 domain: about 0.5 s on a
// CI core), for tests that must catch a job while it runs. Made once per machine under the temp
// dir (INSECURE dev-setup key: tests only) and shared by the test files that need it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './capture.js';

export interface DevKey {
  zkey: string;
  wtns: string;
  vkey: string;
}

export async function slowDevKey(constraints = 4096): Promise<DevKey> {
  const dir = path.join(tmpdir(), `cuzk-test-devkey-${constraints}-v1`);
  const key: DevKey = { zkey: path.join(dir, 'c.zkey'), wtns: path.join(dir, 'c.wtns'), vkey: path.join(dir, 'vkey.json') };
  if (existsSync(key.vkey)) return key;
  const tmp = `${dir}.${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const steps = [
    ['dev-circuit', '--constraints', String(constraints), '--curve', 'bn128', path.join(tmp, 'c.r1cs'), path.join(tmp, 'c.wtns'), '--quiet'],
    ['dev-setup', path.join(tmp, 'c.r1cs'), path.join(tmp, 'c.zkey'), '--quiet'],
    ['zkey', 'export', 'verificationkey', path.join(tmp, 'c.zkey'), path.join(tmp, 'vkey.json'), '--quiet'],
  ];
  for (const args of steps) {
    const r = await runCli(args);
    if (r.code !== 0) throw new Error(`cuzk ${args.join(' ')}: ${r.stderr}`);
  }
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test file made it first
  }
  return key;
}
