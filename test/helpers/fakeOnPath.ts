// A fake agent as a user's install puts a CLI on PATH: an executable wrapper named like the real
// command that execs one of test/fakes (exec keeps the pid, so the session's pid is the fake's).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FAKES = resolve(__dirname, '..', 'fakes');

/** Writes `bin/<command>` running test/fakes/<fake> with `args` before the caller's; returns its path. */
export function writeFake(bin: string, command: string, fake = 'fake-agent.mjs', ...args: string[]): string {
  const file = join(bin, command);
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${join(FAKES, fake)}" ${args.map((a) => `${a} `).join('')}"$@"\n`, { mode: 0o755 });
  return file;
}
