// Every command refuses a flag it does not take: one line naming the flag, exit 2, nothing done
// (a prove with an unknown flag writes no proof); the flags each command documents still pass.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkFlags } from '../../src/cli/flags.js';
import { runCli } from '../helpers/capture.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-flags-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

const refused = async (args: string[], flag: string) => {
  const r = await runCli(args);
  assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, new RegExp(`^cuzk: E_INVALID_ARG: unknown option --${flag} for \`cuzk ${args[0]}\``));
};

describe('unknown flags', () => {
  it('prove with a valid key and witness and --bogus: exit 2, no proof written', async () => {
    const proof = path.join(dir, 'p.json');
    await refused(['prove', vectorFile(set, 'circuit.zkey'), vectorFile(set, 'witness.wtns'), proof, path.join(dir, 'q.json'), '--bogus'], 'bogus');
    assert.equal(existsSync(proof), false);
  });

  it('every command refuses --bogus (and --bogus=1)', async () => {
    const commands = [['verify', 'a', 'b', 'c'], ['fullprove', 'a', 'b', 'c', 'd', 'e'], ['zkey', 'export', 'verificationkey', 'a', 'b'], ['dev-circuit', 'a', 'b'], ['dev-setup', 'a', 'b'], ['bench'], ['demo'], ['serve'], ['submit', 'k', 'w'], ['await', 'j'], ['status'], ['cancel', 'j'], ['queue', 'pause'], ['keys']];
    for (const c of commands) {
      await refused([...c, '--bogus'], 'bogus');
      await refused([...c, '--bogus=1'], 'bogus');
    }
  });

  it("another command's flag is unknown here: prove --constraints, verify --remote, dev-setup --jobs", async () => {
    await refused(['prove', 'a', 'b', 'c', 'd', '--constraints', '5'], 'constraints');
    await refused(['verify', 'a', 'b', 'c', '--remote', 'x'], 'remote');
    await refused(['dev-setup', 'a', 'b', '--jobs', '3'], 'jobs');
    await refused(['status', '--listen', 'x'], 'listen');
  });

  it("the flags a command documents pass the check", () => {
    checkFlags('prove', new Map<string, unknown>([['json', true], ['threads', '2'], ['quiet', true], ['verbose', true]]));
    checkFlags('prove', new Map<string, unknown>([['remote', 'x'], ['upload-key', true], ['token', 't'], ['timeout-ms', '5']]));
    checkFlags('serve', new Map<string, unknown>([['listen', 'x'], ['verify', 'false'], ['print-config', true], ['config', 'c']]));
    checkFlags('bench', new Map<string, unknown>([['size', '10'], ['remote', 'self'], ['clients', '2'], ['upload-key', true], ['compare', 'pinned:off']]));
    checkFlags('dev-circuit', new Map<string, unknown>([['constraints', '5'], ['curve', 'bn128'], ['seed', 's']]));
    checkFlags('dev-setup', new Map<string, unknown>([['constraints', '5'], ['curve', 'bn128'], ['seed', 's']]));
  });
});

describe('serve: boolean options and stray arguments', () => {
  const printed = async (args: string[]) => {
    const r = await runCli(['serve', '--print-config', '--data-dir', dir, ...args]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  it('a boolean option takes a following true or false; bare it is true', async () => {
    const off = await printed(['--verify', 'false', '--pinned', 'false', '--takeover', 'false']);
    assert.match(off, /^verify = false$/m);
    assert.match(off, /^pinned = false$/m);
    assert.match(off, /^takeover = false$/m);
    const on = await printed(['--pinned', 'false', '--takeover', '--verify', 'true']);
    assert.match(on, /^verify = true$/m);
    assert.match(on, /^takeover = true$/m);
    assert.match(await printed(['--verify=false']), /^verify = false$/m);
  });
  it('an argument after serve (or doctor) is refused, naming it: exit 2', async () => {
    // --print-config, so that a serve that ignored the argument prints and exits instead of serving
    const serve = ['serve', '--print-config', '--data-dir', dir];
    for (const args of [[...serve, 'stray'], [...serve, '--verify', 'no'], [...serve, 'extra', '--verify'], ['doctor', '--data-dir', dir, 'x']]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr.trim(), /^cuzk: E_INVALID_ARG: `cuzk (serve|doctor)` takes options only, got the argument "(stray|no|extra|x)"/);
    }
  });
});
