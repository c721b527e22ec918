// A release whose hooks never run, named: a real termio-host (in this process) runs a fake agent
// that declares hooks, shows work in its title and never runs a hook (as Codex 0.169 does under
// Termio). Once the grace is over, `termio sessions why` names the release the host probed
// (`<program> --version`), and `termio hooks status` names it too, from the host's note; a
// later session of that release whose hooks report drops the note.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { createLogger } from '../../../src/app/services/log';
import { hookSilenceFile, readHookSilence, versionFromOutput } from '../../../src/app/services/hookSilence';
import { termioPaths } from '../../../src/app/services/paths';
import { ProgramAnswers } from '../../../src/app/services/programIdentity';
import { watchHookSilence } from '../../../src/app/host/status/hookSilenceWatch';
import { Emitter } from '../../../src/protocol/events';
import type { SessionStatus } from '../../../src/protocol/status';
import { nullLogger } from '../../../src/app/services/log';
import { repoRoot } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';

const FAKE = `#!/usr/bin/env node
if (process.argv[2] === '--version') { console.log('fake-silent 3.4.5'); process.exit(0); }
// Works at once (a spinner in the title) and never runs a hook.
process.stdout.write('\\x1b]0;⠋ fake working\\x07> ');
process.stdin.resume();
`;

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repoRoot, 'bin', 'termio'), ...args], { env, cwd: env.HOME, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      resolve({ status: err ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr });
    });
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a release whose hooks do not report', () => {
  it('reads the version out of what CLIs print', () => {
    expect(versionFromOutput('codex-cli 0.169.1\n')).toBe('0.169.1');
    expect(versionFromOutput('2.1.331 (Claude Code)')).toBe('2.1.331');
    expect(versionFromOutput('0.61.0-nightly.20261201')).toBe('0.61.0-nightly.20261201');
    expect(versionFromOutput('no version here')).toBeNull();
  });

  it('is named by agent and version in sessions why and hooks status', { timeout: 60_000 }, async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-silent-')));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'fake-silent'), FAKE);
    chmodSync(join(bin, 'fake-silent'), 0o755);
    const env: NodeJS.ProcessEnv = {
      HOME: home,
      TERMIO_HOME: join(home, '.termio'),
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      SHELL: '/bin/sh',
      LANG: 'C.UTF-8',
      TERMIO_HOST_IDLE_MS: '0',
    };
    const paths = termioPaths(env);
    mkdirSync(paths.userAgentsDir, { recursive: true });
    writeFileSync(
      join(paths.userAgentsDir, 'fake-silent.json'),
      JSON.stringify({
        protocol: 1,
        id: 'fake-silent',
        name: 'Fake Silent',
        command: 'fake-silent',
        hooks: {
          type: 'json',
          file: '~/.fakesilent/settings.json',
          dialect: 'claude',
          events: [
            { on: 'UserPromptSubmit', state: 'working' },
            { on: 'Stop', state: 'done' },
          ],
        },
        titleStatus: { working: ['^⠋ '] },
      }),
    );

    const started = await HostProcess.start({ env, logger: createLogger(join(home, 'host.log')), idleExitMs: 0, path: env.PATH! });
    if (!started.ok) throw new Error(started.message);
    cleanups.push(() => started.host.stop('test over'));

    const spawned = await cli(['sessions', 'spawn', '--agent', 'fake-silent', '--cwd', home, '--json'], env);
    expect(spawned.stderr).toBe('');
    const id = (JSON.parse(spawned.stdout) as { id: string }).id;
    // The title showed work; no hook came within the grace: the note names the release.
    const why = await waitFor(
      async () => {
        const out = (await cli(['sessions', 'why', id], env)).stdout;
        return out.includes('hooks not reporting: Fake Silent 3.4.5') ? out : undefined;
      },
      { what: 'the why strip to name the release', timeout: 30_000, interval: 500 },
    );
    expect(why).toContain('has hooks declared but none reached Termio');
    await waitFor(() => readHookSilence(hookSilenceFile(paths))['fake-silent'], { what: 'the release noted' });

    const status = await cli(['hooks', 'status', '--agent', 'fake-silent'], env);
    expect(status.stdout).toContain('not reporting: Fake Silent 3.4.5 ran with these hooks and none reached Termio');
    const json = JSON.parse((await cli(['hooks', 'status', '--agent', 'fake-silent', '--json'], env)).stdout) as {
      agents: Array<{ agentId: string; notReporting?: { release: string; version: string } }>;
    };
    expect(json.agents[0]).toMatchObject({ agentId: 'fake-silent', notReporting: { release: 'Fake Silent 3.4.5', version: '3.4.5' } });
  });

  it('a later session of the same release whose hooks report drops the note', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-silent-')));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const program = join(home, 'fake-silent');
    const writeFake = (version: string) => {
      writeFileSync(program, FAKE.replace('3.4.5', version));
      chmodSync(program, 0o755);
    };
    writeFake('3.4.5');
    const file = join(home, 'hook-silence.json');
    const changes = new Emitter<{ sessionId: string; status: SessionStatus }>();
    const named: string[] = [];
    const answers = new ProgramAnswers();
    watchHookSilence({
      tracker: { onStateChange: changes.event, nameRelease: (sid, release) => named.push(`${sid} ${release}`) },
      agentOf: () => ({ agentId: 'fake-silent', name: 'Fake Silent', program }),
      programs: { answerOf: (p, args) => answers.get(p, args, { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` }).promise },
      file,
      logger: nullLogger,
    });
    const at = Date.now();
    const silent: SessionStatus = {
      state: 'working',
      since: at,
      why: { channel: 'titleStatus', rule: '^⠋ ', at },
      health: [{ code: 'hooksNotReporting', message: 'hooks not reporting', since: at }],
    };
    const hooked: SessionStatus = { state: 'working', since: at, why: { channel: 'hooks', event: 'UserPromptSubmit', at }, health: [] };
    changes.fire({ sessionId: 's1', status: silent });
    await waitFor(() => readHookSilence(file)['fake-silent'], { what: 'the release noted' });
    expect(named).toEqual(['s1 Fake Silent 3.4.5']);
    changes.fire({ sessionId: 's3', status: hooked });
    await waitFor(() => readHookSilence(file)['fake-silent'] === undefined, { what: 'the note dropped by a reporting session of 3.4.5' });
  });
});
