// The login shell's PATH (asked through real child shells standing in for the user's $SHELL) and
// the command resolver over real folders.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearLoginShellPathCache, createCommandResolver, loginShellPath } from '../../../src/app/services/loginShellPath';
import { isAlive } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'termio-path-'));
  clearLoginShellPathCache();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const file = join(root, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('loginShellPath', () => {
  it('reads the PATH a login shell sets up, ignoring what its dotfiles print around it', async () => {
    // Like a login shell whose profile prints a banner and prepends a folder to PATH.
    const shell = script(
      'shell',
      'echo "Welcome!"\nPATH="/opt/agents/bin:$PATH"\nexport PATH\nwhile [ $# -gt 0 ]; do\n  if [ "$1" = -c ]; then /bin/sh -c "$2"; echo "bye"; exit 0; fi\n  shift\ndone',
    );
    const r = await loginShellPath({ SHELL: shell, HOME: root, PATH: '/usr/bin:/bin' });
    expect(r).toEqual({ path: '/opt/agents/bin:/usr/bin:/bin', source: 'login-shell' });
  });

  it('asks each shell once while its start-up files stay as they were', async () => {
    const counter = join(root, 'count');
    const shell = script('shell', `echo x >> ${counter}\nwhile [ $# -gt 0 ]; do\n  if [ "$1" = -c ]; then exec /bin/sh -c "$2"; fi\n  shift\ndone`);
    const env = { SHELL: shell, HOME: root, PATH: '/bin' };
    const [a, b] = await Promise.all([loginShellPath(env), loginShellPath(env)]);
    expect(a).toEqual(b);
    await loginShellPath(env);
    expect(readFileSync(counter, 'utf8')).toBe('x\n');
  });

  it('falls back to the environment PATH when the shell hangs, fails or is missing', async () => {
    // Given up on by its timer (the problem says so) and ended, not waited for. 2 s gives the
    // shell time to write its pid first even on a loaded machine.
    const hungPid = join(root, 'hung.pid');
    const hung = script('hung', `echo $$ > ${hungPid}\nexec /bin/sleep 30`);
    const r = await loginShellPath({ SHELL: hung, HOME: root, PATH: '/env/bin' }, 2_000);
    expect(r).toEqual({ path: '/env/bin', source: 'environment', problem: `${hung} did not answer within 2000 ms` });
    const pid = Number(readFileSync(hungPid, 'utf8'));
    await waitFor(() => !isAlive(pid), { what: 'the hung shell to be ended' });

    const failing = script('failing', 'exit 3');
    expect(await loginShellPath({ SHELL: failing, HOME: root, PATH: '/env/bin' })).toEqual({
      path: '/env/bin',
      source: 'environment',
      problem: `${failing} exited with 3 without printing its PATH`,
    });

    const missing = join(root, 'no-such-shell');
    const m = await loginShellPath({ SHELL: missing, HOME: root, PATH: '/env/bin' });
    expect(m).toMatchObject({ path: '/env/bin', source: 'environment' });
    expect(m.problem).toMatch(new RegExp(`^cannot start ${missing}: `));
  });
});

describe('createCommandResolver', () => {
  it('finds executables in PATH order, skipping non-executables, folders and relative entries', () => {
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'tool'), 'not executable');
    mkdirSync(join(a, 'dir-tool'));
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(join(b, 'tool'), 0o755);
    writeFileSync(join(b, 'other'), '#!/bin/sh\n');
    chmodSync(join(b, 'other'), 0o755);
    symlinkSync(join(b, 'other'), join(a, 'linked'));
    const r = createCommandResolver(['relative/bin', a, join(root, 'missing'), b].join(':'), { HOME: root });
    expect(r.resolve('tool')).toBe(join(b, 'tool'));
    expect(r.resolve('linked')).toBe(join(a, 'linked'));
    expect(r.resolve('dir-tool')).toBeUndefined();
    expect(r.resolve('nothing')).toBeUndefined();
    expect(r.resolve('./tool')).toBeUndefined();
    expect(r.resolve(join(b, 'tool'))).toBe(join(b, 'tool'));
    expect(r.resolve(join(a, 'tool'))).toBeUndefined();
    expect(r.resolve('~/b/other')).toBe(join(b, 'other'));
  });
});
