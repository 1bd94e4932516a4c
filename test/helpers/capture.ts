// Runs the CLI's main() in this process with its output captured (through main's io argument:
// the test runner owns process.stdout).
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tty`: stderr counts as a terminal (progress is drawn). */
export async function runCli(args: string[], opts: { tty?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), errIsTTY: opts.tty === true });
  return { code, stdout, stderr };
}
