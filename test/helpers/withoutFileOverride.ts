// Root reads and writes any file whatever its mode, so a test of a permission refusal runs the
// code in a child process: as root (CI) without the capabilities that override file permissions
// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped by util-linux's setpriv), as anyone else as is.
// Either way the refusal is the kernel's, as a user would meet it.
import { execFileSync } from 'node:child_process';

/** Runs `argv` so that file permissions apply to it, even as root; its stdout. */
export function runWithoutFileOverride(argv: string[], opts: { env?: NodeJS.ProcessEnv } = {}): string {
  const [cmd, ...args] = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...argv] : argv;
  return execFileSync(cmd!, args, { env: opts.env ?? process.env, encoding: 'utf8' });
}
