// machines.json as the real termio-host reads and edits it, driven by the real termio command:
// a file that cannot be read (cut short, binary, a folder, far too large) is left alone, then moved
// aside unchanged by the next `machines add`, never spliced into; the list is capped, and only a
// few machines connect at once. ssh is a stand-in on the host's PATH.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_CONNECTS } from '../../../src/app/host/machines/machineLink';
import { MAX_MACHINES_FILE_BYTES } from '../../../src/app/host/machines/machinesStore';
import { MAX_MACHINES } from '../../../src/protocol/machines';
import { startHostProcess } from '../../helpers/companionHost';
import { termio } from '../../helpers/controlHost';
import { endProcessesWithHome } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

let host: Awaited<ReturnType<typeof startHostProcess>> | undefined;
afterEach(async () => {
  const home = host?.home;
  await host?.stop();
  if (home) await endProcessesWithHome(home);
  host = undefined;
});

/** A host with machines.json holding `text` (when given), whose ssh fails at once as an
 *  unreachable machine's does, or (`silent`) hangs without a word. */
async function hostWith(text?: string, ssh: 'fails' | 'silent' = 'fails') {
  const bin = join(process.env.TMPDIR ?? '/tmp', `${ssh}-ssh-${process.pid}`);
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'ssh'),
    ssh === 'silent' ? '#!/bin/sh\nexec sleep 300\n' : '#!/bin/sh\necho "ssh: connect to host: No route to host" >&2\nexit 255\n',
  );
  chmodSync(join(bin, 'ssh'), 0o755);
  host = await startHostProcess({ enabled: false, config: text === undefined ? {} : { 'machines.json': text }, env: { PATH: `${bin}:${process.env.PATH}` } });
  return { env: host.env, file: join(host.env.TERMIO_HOME!, 'config', 'machines.json'), dir: join(host.env.TERMIO_HOME!, 'config') };
}

const asideFiles = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('machines.json.corrupt-'));

describe('an unreadable machines.json', () => {
  for (const [what, text] of [
    ['cut short', '{\n  "machines": {\n    "m1": { "targ'],
    ['binary', '\u0000\u0001\u00ff\u0007garbage\u0000'],
  ] as const) {
    it(`(${what}) is read as no machines and left alone, then moved aside unchanged by the next add`, async () => {
      const { env, file, dir } = await hostWith(text);
      const listed = await termio(['machines', 'list'], env);
      expect(listed.stderr).toContain('machines.json: cannot be read (');
      expect(readFileSync(file, 'utf8')).toBe(text);
      const added = await termio(['machines', 'add', 'm2', 'me@m2.invalid'], env);
      expect(added.stderr).toMatch(/machines\.json could not be read \(.*\); it was moved to .*machines\.json\.corrupt-.* unchanged/);
      const [aside] = asideFiles(dir);
      expect(readFileSync(join(dir, aside!), 'utf8')).toBe(text);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ machines: { m2: { target: 'me@m2.invalid' } } });
    });
  }

  it('(a folder, or a file past the size cap) is set aside the same way', async () => {
    const { env, file, dir } = await hostWith();
    mkdirSync(file);
    writeFileSync(join(file, 'inside.txt'), 'kept');
    expect((await termio(['machines', 'list'], env)).stderr).toContain('it is a folder');
    expect((await termio(['machines', 'add', 'a', 'me@a.invalid'], env)).stderr).toContain('it was moved to');
    expect(readFileSync(join(dir, asideFiles(dir)[0]!, 'inside.txt'), 'utf8')).toBe('kept');
    expect(statSync(file).isFile()).toBe(true);

    rmSync(file);
    const big = `{"machines": {}, "pad": "${'x'.repeat(MAX_MACHINES_FILE_BYTES)}"}`;
    writeFileSync(file, big);
    expect((await termio(['machines', 'list'], env)).stderr).toContain(`more than a machines list's ${MAX_MACHINES_FILE_BYTES}`);
    await termio(['machines', 'add', 'b', 'me@b.invalid'], env);
    await waitFor(() => asideFiles(dir).length === 2, { what: 'the large file to be set aside' });
    expect(asideFiles(dir).some((n) => statSync(join(dir, n)).isFile() && statSync(join(dir, n)).size === big.length)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ machines: { b: { target: 'me@b.invalid' } } });
  });

  it('with "machines" that is not an object refuses the add and changes nothing', async () => {
    const text = '{ "machines": 5 }';
    const { env, file, dir } = await hostWith(text);
    const added = await termio(['machines', 'add', 'c', 'me@c.invalid'], env);
    expect(added).toMatchObject({ status: 2, stderr: expect.stringContaining('"machines" is not an object') });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(asideFiles(dir)).toEqual([]);
  });
});

describe('many machines', () => {
  it(`keeps ${MAX_MACHINES}, connects ${MAX_CONCURRENT_CONNECTS} at a time, and refuses one more`, async () => {
    const entries = Object.fromEntries(Array.from({ length: MAX_MACHINES + 6 }, (_, i) => [`m${i}`, { target: `me@m${i}.invalid` }]));
    const { env } = await hostWith(JSON.stringify({ machines: entries }), 'silent');
    const listed = await termio(['machines', 'list', '--json'], env);
    const body = JSON.parse(listed.stdout) as { machines: Array<{ name: string; state: string }>; errors: string[] };
    expect(body.machines).toHaveLength(MAX_MACHINES);
    expect(body.errors).toEqual([
      expect.stringContaining(`holds more than ${MAX_MACHINES} machines; "m${MAX_MACHINES}" and every machine after it are skipped`),
    ]);
    // The host's ssh children: never more than the gate lets through (the stand-in never answers).
    const sshChildren = () =>
      readdirSync('/proc')
        .filter((n) => /^\d+$/.test(n))
        .filter((n) => {
          try {
            const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
            return (
              Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === host!.child.pid && readFileSync(`/proc/${n}/cmdline`, 'utf8').includes('sleep')
            );
          } catch {
            return false;
          }
        }).length;
    await waitFor(() => sshChildren() === MAX_CONCURRENT_CONNECTS, { what: `${MAX_CONCURRENT_CONNECTS} ssh to start` });
    const again = JSON.parse((await termio(['machines', 'list', '--json'], env)).stdout) as typeof body;
    expect(again.machines.every((m) => m.state === 'connecting')).toBe(true);
    expect(sshChildren()).toBe(MAX_CONCURRENT_CONNECTS);
    const refused = await termio(['machines', 'add', 'one-more', 'me@more.invalid'], env);
    expect(refused).toMatchObject({ status: 2, stderr: expect.stringContaining(`already holds ${MAX_MACHINES} machines`) });
  });
});
