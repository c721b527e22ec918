// A manifest's `command` as ATP means it, through a real host: a command line runs through the
// login shell with `exec` (the shell quotes and expands it, and the resume arguments are quoted
// for it), a program name alone is still checked for "not installed" (so is a command line's
// first word), and a manifest without a command is the login shell. Plus the protocol helpers.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { createLogger } from '../../../src/app/services/log';
import { commandLineProgram, isCommandLine, loginShellArgv } from '../../../src/protocol/commandLine';
import { waitFor } from '../../helpers/waitFor';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('command lines (protocol)', () => {
  it('tells a program from a command line and builds the login shell argv with exec', () => {
    expect(isCommandLine('claude')).toBe(false);
    expect(isCommandLine('~/bin/agent')).toBe(false);
    expect(isCommandLine('npx -y some-agent')).toBe(true);
    expect(isCommandLine(`agent --name='x'`)).toBe(true);
    expect(commandLineProgram('npx -y some-agent')).toBe('npx');
    expect(commandLineProgram('FOO=1 agent')).toBeUndefined();
    expect(commandLineProgram(`'my agent' --x`)).toBeUndefined();
    expect(loginShellArgv('/bin/zsh', 'npx -y some-agent', ['--resume', 'a b', "it's"])).toEqual([
      '/bin/zsh',
      '-ilc',
      `exec npx -y some-agent --resume 'a b' 'it'\\''s'`,
    ]);
    expect(loginShellArgv('/bin/sh', 'myagent --fancy', [])).toEqual(['/bin/sh', '-ilc', 'exec myagent --fancy']);
  });
});

describe('command lines through the host', () => {
  it('runs a command line through the login shell, checks its program, and launches the login shell without a command', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-cmdline-')));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const agents = join(home, '.termio', 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    const write = (id: string, m: Record<string, unknown>) => writeFileSync(join(agents, `${id}.json`), JSON.stringify({ id, name: id, ...m }));
    // The shell expands $HOME and keeps the quoted words whole; the program is printf (on PATH).
    write('lineAgent', { command: `printf 'launched:%s:%s\\n' "$HOME" 'two words'` });
    write('ghost', { command: 'no-such-program-q7 --flag' });
    write('plainShell', {});
    const path = `${dirname(process.execPath)}:/usr/bin:/bin`;
    const env: NodeJS.ProcessEnv = {
      HOME: home,
      TERMIO_HOME: join(home, '.termio'),
      PATH: path,
      SHELL: '/bin/sh',
      TERMIO_HOST_IDLE_MS: '0',
      PS1: '$ ',
      ENV: '',
    };
    const started = await HostProcess.start({ env, logger: createLogger(join(home, 'host.log')), idleExitMs: 0, path });
    if (!started.ok) throw new Error(started.message);
    const host = started.host;
    cleanups.push(() => host.stop('test over'));

    const line = await host.registry.spawn({ agent: 'lineAgent', cwd: home });
    if (!line.ok) throw new Error(line.message);
    const screen = () => line.record.session.screenLines().join('\n');
    await waitFor(() => screen().includes(`launched:${home}:two words`), { what: `the command line's output (screen: ${screen()})` });
    // exec: the program replaced the shell, so the session ends with the program's exit code.
    await waitFor(() => line.record.session.exited, { what: 'printf to exit' });
    expect(line.record.session.exited).toMatchObject({ exitCode: 0 });

    const ghost = await host.registry.spawn({ agent: 'ghost', cwd: home });
    expect(ghost).toMatchObject({ ok: false, message: expect.stringContaining(`'no-such-program-q7' is not on your login shell's PATH`) });

    const shell = await host.registry.spawn({ agent: 'plainShell', cwd: home });
    if (!shell.ok) throw new Error(shell.message);
    shell.record.session.write('echo shell-$((20+22))\r');
    await waitFor(() => shell.record.session.screenLines().some((l) => l.includes('shell-42')), { what: 'the login shell to run a command' });
  });
});
