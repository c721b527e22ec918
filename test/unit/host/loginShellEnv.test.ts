// What sessions run with: the environment the user's login shell exports (its PATH and what its
// profile sets), asked once through a real child shell standing in for $SHELL, and handed to a
// real session in a real headless Host, as a dock-launched macOS app needs.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import { nullLogger } from '../../../src/app/services/log';
import { clearLoginShellPathCache, loginShellEnv, parseEnvOutput } from '../../../src/app/services/loginShellPath';
import { waitFor } from '../../helpers/waitFor';

let root: string;
let host: Host | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'termio-loginenv-')));
  clearLoginShellPathCache();
});
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  rmSync(root, { recursive: true, force: true });
});

/**
 * A stand-in for the user's login shell: asked with -c (as Termio asks it), it runs `asked`, then
 * the command; started as a session's interactive shell it is a plain sh, so whatever the session
 * has came from Termio.
 */
function fakeShell(name: string, asked: string): string {
  const file = join(root, name);
  writeFileSync(
    file,
    `#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = -c ]; then
${asked}
  fi
  shift
done
PS1='$ ' ENV='' exec /bin/sh
`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** A login shell whose profile adds a folder to PATH and exports a token, the way ~/.zprofile
 *  does for nvm or an API key. */
const loginShell = (): string =>
  fakeShell(
    'login-shell',
    `    echo "profile banner"
    PATH="/opt/login-only/bin:$PATH" FROM_PROFILE='token=abc' MULTI='line one
line two' exec /bin/sh -c "$2"`,
  );

/** A login shell as a real one reads its profile: it sources ~/.profile (counting the times it
 *  was asked) before the command. */
const profileShell = (): string =>
  fakeShell(
    'profile-shell',
    `    echo asked >> "$HOME/asked"
    . "$HOME/.profile"
    exec /bin/sh -c "$2"`,
  );

const timesAsked = (): number => readFileSync(join(root, 'asked'), 'utf8').split('\n').filter(Boolean).length;

describe('parseEnvOutput', () => {
  it('reads NAME=value lines, values with = and newlines, and drops the shell’s own bookkeeping', () => {
    expect(parseEnvOutput('A=1\nKEY=a=b\nMULTI=one\ntwo\nPWD=/x\nSHLVL=2\n_=/usr/bin/env\nOLDPWD=/y\nZ=')).toEqual({
      A: '1',
      KEY: 'a=b',
      MULTI: 'one\ntwo',
      Z: '',
    });
  });
});

describe('loginShellEnv', () => {
  it('returns what the login shell exports, its PATH included', async () => {
    const r = await loginShellEnv({ SHELL: loginShell(), HOME: root, PATH: '/usr/bin:/bin', KEPT: 'yes' });
    expect(r.source).toBe('login-shell');
    expect(r.path).toBe('/opt/login-only/bin:/usr/bin:/bin');
    expect(r.vars).toMatchObject({ PATH: r.path, FROM_PROFILE: 'token=abc', MULTI: 'line one\nline two', KEPT: 'yes', HOME: root });
    expect(r.vars).not.toHaveProperty('PWD');
    expect(r.vars).not.toHaveProperty('SHLVL');
  });

  it('asks again once the user edited a start-up file, as a new terminal tab reads it again', async () => {
    writeFileSync(join(root, '.profile'), 'export FROM_PROFILE=one\n');
    const env = { SHELL: profileShell(), HOME: root, PATH: '/usr/bin:/bin' };
    const first = await loginShellEnv(env);
    expect(first.vars.FROM_PROFILE).toBe('one');
    expect(await loginShellEnv(env)).toBe(first);
    expect(timesAsked()).toBe(1);
    writeFileSync(join(root, '.profile'), 'export FROM_PROFILE=second\n');
    expect((await loginShellEnv(env)).vars.FROM_PROFILE).toBe('second');
    expect(timesAsked()).toBe(2);
  });

  it('falls back to the given environment when the shell fails', async () => {
    const r = await loginShellEnv({ SHELL: join(root, 'missing'), HOME: root, PATH: '/env/bin', KEPT: 'yes' });
    expect(r.source).toBe('environment');
    expect(r.vars).toEqual({ SHELL: join(root, 'missing'), HOME: root, PATH: '/env/bin', KEPT: 'yes' });
  });
});

describe('sessions of a Host', () => {
  it('start with the login shell’s PATH and exports, not the minimal environment the app got', async () => {
    // launchd gives a dock-launched app PATH=/usr/bin:/bin:/usr/sbin:/sbin and nothing from the profile.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: root, TERMIO_HOME: join(root, '.termio'), SHELL: loginShell(), PATH: '/usr/bin:/bin' };
    delete env.FROM_PROFILE;
    const started = await Host.start({ env, logger: nullLogger, notificationSink: { send: async () => undefined } });
    if (!started.ok) throw new Error(started.message);
    host = started.host;
    const r = await host.registry.spawn({ cwd: root });
    if (!r.ok) throw new Error(r.message);
    const session = r.record.session;
    // Type once the shell shows its prompt: typed ahead, the echo lands before the prompt and the
    // output shares its line.
    await waitFor(() => session.screenLines().some((l) => l.startsWith('$')), { what: "the session shell's prompt" });
    session.write('echo "P=$PATH F=$FROM_PROFILE"\r');
    const line = await waitFor(() => session.screenLines().find((l) => l.startsWith('P=')), { what: 'the echoed environment' });
    expect(line).toBe('P=/opt/login-only/bin:/usr/bin:/bin F=token=abc');
  });
});

describe('sessions of a long-running Host', () => {
  it('start with what the profile exports now, and an agent on a folder the profile added since is installed', async () => {
    const agents = join(root, '.termio', 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, 'newagent.json'), JSON.stringify({ id: 'newagent', name: 'New agent', command: 'newagent' }));
    writeFileSync(join(root, '.profile'), 'export FROM_PROFILE=one\n');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: root, TERMIO_HOME: join(root, '.termio'), SHELL: profileShell(), PATH: '/usr/bin:/bin' };
    delete env.FROM_PROFILE;
    const started = await Host.start({ env, logger: nullLogger, notificationSink: { send: async () => undefined } });
    if (!started.ok) throw new Error(started.message);
    host = started.host;
    const echoed = async (): Promise<string> => {
      const r = await host!.registry.spawn({ cwd: root });
      if (!r.ok) throw new Error(r.message);
      const session = r.record.session;
      await waitFor(() => session.screenLines().some((l) => l.startsWith('$')), { what: "the session shell's prompt" });
      session.write('echo "F=$FROM_PROFILE"\r');
      return waitFor(() => session.screenLines().find((l) => l.startsWith('F=')), { what: 'the echoed variable' });
    };
    expect(await echoed()).toBe('F=one');
    const before = await host.registry.spawn({ cwd: root, agent: 'newagent' });
    expect(before).toMatchObject({ ok: false, message: expect.stringMatching(/New agent is not installed/) });

    // The user installs the agent into a folder of their own and puts it on PATH in their profile.
    mkdirSync(join(root, 'newbin'));
    writeFileSync(join(root, 'newbin', 'newagent'), '#!/bin/sh\necho "newagent F=$FROM_PROFILE"\nexec cat\n');
    chmodSync(join(root, 'newbin', 'newagent'), 0o755);
    writeFileSync(join(root, '.profile'), `export FROM_PROFILE=two\nPATH="${root}/newbin:$PATH"\n`);
    const agent = await host.registry.spawn({ cwd: root, agent: 'newagent' });
    if (!agent.ok) throw new Error(agent.message);
    await waitFor(() => agent.record.session.screenLines().some((l) => l.startsWith('newagent F=two')), { what: 'the new agent, with the new export' });
    expect(await echoed()).toBe('F=two');
    expect(timesAsked()).toBe(2);

    // A typo that makes the shell fail: sessions keep what it exported before, the agent its PATH.
    writeFileSync(join(root, '.profile'), 'exit 3\n');
    expect(await echoed()).toBe('F=two');
    expect(timesAsked()).toBe(3);
    const again = await host.registry.spawn({ cwd: root, agent: 'newagent' });
    if (!again.ok) throw new Error(again.message);
  });
});
