// A machine's target reaches ssh's command line, and through an older ssh or a user's ProxyCommand
// (%h) a shell: the real termio-host and termio command accept only the characters a destination is
// made of. A target with shell characters is refused by `machines add` and skipped when read from
// machines.json, named in the error, and never handed to ssh (a stand-in on the host's PATH that
// writes down every target it is given).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHostProcess } from '../../helpers/companionHost';
import { termio } from '../../helpers/controlHost';
import { endProcessesWithHome } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

let host: Awaited<ReturnType<typeof startHostProcess>> | undefined;
const bin = join(process.env.TMPDIR ?? '/tmp', `target-ssh-${process.pid}`);
afterEach(async () => {
  const home = host?.home;
  await host?.stop();
  if (home) await endProcessesWithHome(home);
  host = undefined;
  rmSync(bin, { recursive: true, force: true });
});

const HOSTILE = ['x$(touch${IFS}pwned)', 'x;touch${IFS}pwned;', 'x`touch${IFS}pwned`', "x'y", 'x|y'];

describe("a machine's target", () => {
  it('with shell characters is refused by add, skipped from machines.json, and never reaches ssh', async () => {
    mkdirSync(bin, { recursive: true });
    const seen = join(bin, 'targets.log');
    writeFileSync(seen, '');
    // The target is the word after `--`; the stand-in fails as an unreachable machine's ssh does.
    writeFileSync(
      join(bin, 'ssh'),
      `#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done\nprintf '%s\\n' "$2" >> '${seen}'\necho "ssh: connect to host: No route to host" >&2\nexit 255\n`,
    );
    chmodSync(join(bin, 'ssh'), 0o755);
    const saved = Object.fromEntries(HOSTILE.map((t, i) => [`bad${i}`, { target: t }]));
    host = await startHostProcess({
      enabled: false,
      config: { 'machines.json': JSON.stringify({ machines: { ...saved, good: { target: 'me@[fe80::1%eth0]' } } }) },
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    const env = host.env;
    const file = join(env.TERMIO_HOME!, 'config', 'machines.json');
    const before = readFileSync(file, 'utf8');

    const listed = await termio(['machines', 'list', '--json'], env);
    const list = JSON.parse(listed.stdout) as { machines: Array<{ name: string }>; errors: string[] };
    expect(list.machines.map((m) => m.name)).toEqual(['good']);
    expect(list.errors).toEqual(
      HOSTILE.map((_, i) => expect.stringMatching(new RegExp(`machines\\.json: bad${i}: target: must be \\[user@\\]host.*skipped$`))),
    );

    for (const t of HOSTILE) {
      const add = await termio(['machines', 'add', 'inj', t], env);
      expect(add.status, add.stdout).not.toBe(0);
      expect(add.stderr).toMatch(/target: must be \[user@\]host or an ssh alias: letters, digits and \. _ - @ : % \[ \] only/);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);

    // The good machine's attempts show what ssh was given: never a hostile target.
    await waitFor(() => readFileSync(seen, 'utf8').includes('me@[fe80::1%eth0]'), { what: "the good machine's ssh attempt" });
    expect(
      readFileSync(seen, 'utf8')
        .split('\n')
        .filter((l) => l && l !== 'me@[fe80::1%eth0]'),
    ).toEqual([]);
    expect(existsSync(join(env.HOME!, 'pwned'))).toBe(false);
  });
});
