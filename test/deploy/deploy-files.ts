// What the deploy/ tests share: where deploy/ is, one check of a `cuzk ...` command line written
// in a unit or an image against the real CLI (the command answers --help, the argv parser takes the
// line, and every flag is in src/cli/flags.ts's table for that command), and reading a systemd unit.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFlags } from '../../src/cli/flags.js';
import { parseArgv } from '../../src/cli/main.js';
import { runCli } from '../helpers/capture.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEPLOY = path.join(ROOT, 'deploy');

/** Asserts `argv` (what follows `cuzk`) is a command the CLI has, with only flags it takes; returns
 * the command and its flags. `where` names the line in failure messages. */
export async function checkCuzkArgv(argv: string[], where: string): Promise<{ command: string; flags: Map<string, string | true> }> {
  const parsed = parseArgv(argv); // throws on a value flag with no value
  const command = parsed.positionals[0];
  assert.ok(command, `${where}: no cuzk command in ${JSON.stringify(argv)}`);
  const help = await runCli([command, '--help']);
  assert.equal(help.code, 0, `${where}: \`cuzk ${command}\` is no command of the CLI: ${help.stderr}`);
  try {
    checkFlags(command, parsed.flags);
  } catch (err) {
    assert.fail(`${where}: ${(err as Error).message}`);
  }
  return { command, flags: parsed.flags };
}

/** Key -> every value it has in the [Service]/[Unit]/[Install] sections (comments dropped). */
export function parseUnit(text: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) keys.set(m[1]!, [...(keys.get(m[1]!) ?? []), m[2]!.trim()]);
  }
  return keys;
}

/** The argv after `cuzk` of an Exec line (`/usr/bin/env cuzk ...` or `/path/to/cuzk ...`). */
export function cuzkArgv(exec: string, unitName = 'cuzk.service'): string[] {
  const words = exec.replace(/^[-@:+!]+/, '').split(/\s+/);
  const at = words.findIndex((w) => path.basename(w) === 'cuzk');
  assert.ok(at >= 0 && words.slice(0, at).every((w) => w === '/usr/bin/env'), `${unitName}: "${exec}" does not run cuzk`);
  return words.slice(at + 1);
}
