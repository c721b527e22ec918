// OpenCode's permission prompt is attention, through its plugin: the newest release of npm's
// opencode-ai (the one the release matrix, test/integration/agents/matrixRunner.ts, caches) under a real
// termio-host in a fresh HOME, with `termio hooks install --agent opencode2` and a user config
// that asks before any bash command. The loopback model answers the turn with one bash tool call
// (loopbackModel.ts, `tool` mode), OpenCode asks, its `permission.asked` event reaches the host
// and `termio sessions why` names it; `termio sessions question` reads the command from the
// event's payload, and answering "Allow once" runs it. Offline: nothing reaches a vendor. Skips with the reason
// where the registry is out of reach, and fails instead where CI is set.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { createLogger } from '../../../src/app/services/log';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { repoRoot } from '../../helpers/controlHost';
import { startLoopbackModel } from '../../helpers/loopbackModel';
import { endProcessesWithHome, processesWithHome } from '../../helpers/processes';
import { skipUnlessRequired } from '../../helpers/required';
import { waitFor } from '../../helpers/waitFor';

const PKG = 'opencode-ai';
const CANDIDATES = ['node_modules/.bin/opencode', `node_modules/opencode-${process.platform}-${process.arch}/bin/opencode`];
/** A cold start plus one turn of the real CLI takes ~15 s here; 120 s covers a loaded CI box. */
const TURN_TIMEOUT_S = 120;
/** One `termio` command answers in a second or two; the bound only stops a hung one. */
const CLI_TIMEOUT_MS = 60_000;
/** The host's stop, ending what OpenCode left under the HOME, removing the HOME. */
const CLEANUP_TIMEOUT_MS = 90_000;

function cli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = CLI_TIMEOUT_MS): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(repoRoot, 'bin', 'termio'), ...args],
      { env, cwd: env.HOME, encoding: 'utf8', timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = (err as { code?: unknown } | null)?.code;
        resolve({ status: err ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr });
      },
    );
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, CLEANUP_TIMEOUT_MS);

describe('OpenCode (npm opencode-ai), its newest release', () => {
  it(
    'reports its permission prompt as attention through its plugin, with the question that answers it',
    { timeout: (TURN_TIMEOUT_S + 30) * 1000 + AGENT_CLI_INSTALL_TIMEOUT_MS },
    async (ctx) => {
      const releases = newestReleases(PKG, 1);
      if (!releases.ok) return ctx.skip(skipUnlessRequired(`cannot list the releases: ${releases.reason}`) ?? undefined);
      const version = releases.versions[0]!;
      const installed = await ensureNpmAgentRelease(PKG, version, CANDIDATES);
      if (!installed.ok) return ctx.skip(`${PKG}@${version} is not available: ${installed.reason}`);
      const home = realpathSync(mkdtempSync(join(tmpdir(), `termio-opencode-ask-`)));
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      cleanups.push(async () => {
        await endProcessesWithHome(home);
        expect(processesWithHome(home)).toEqual([]);
      });
      const project = join(home, 'project');
      mkdirSync(project);
      const model = await startLoopbackModel('tool');
      cleanups.push(() => model.close());
      mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'opencode', 'opencode.json'),
        JSON.stringify({
          autoupdate: false,
          share: 'disabled',
          permission: { bash: 'ask' },
          provider: {
            loopback: {
              npm: '@ai-sdk/anthropic',
              name: 'Termio loopback',
              options: { baseURL: `${model.url}/v1`, apiKey: 'sk-termio-test' },
              models: { m: { name: 'Loopback model' } },
            },
          },
          model: 'loopback/m',
        }),
      );
      const path = `${dirname(installed.path)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
      const env: NodeJS.ProcessEnv = {
        HOME: home,
        TERMIO_HOME: join(home, '.termio'),
        PATH: path,
        SHELL: '/bin/sh',
        LANG: 'C.UTF-8',
        TERMIO_HOST_IDLE_MS: '0',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
      };
      const hooks = await cli(['hooks', 'install', '--agent', 'opencode2', '--json'], env);
      expect(hooks.stderr).toBe('');
      expect(hooks.status).toBe(0);

      const started = await HostProcess.start({ env, logger: createLogger(join(home, 'host.log')), idleExitMs: 0, path });
      if (!started.ok) throw new Error(started.message);
      const host = started.host;
      cleanups.push(() => host.stop('test over'));
      const reports: string[] = [];
      host.host.hooks.onReport((r) => reports.push(`${r.state} ${r.event}`));

      const spawned = await cli(
        ['sessions', 'spawn', '--agent', 'opencode2', '--cwd', project, '--prompt', 'run echo hi', '--wait', '--timeout', String(TURN_TIMEOUT_S), '--json'],
        env,
        (TURN_TIMEOUT_S + 10) * 1000,
      );
      const out = JSON.parse(spawned.stdout || '{}') as { id?: string; wait?: { outcome: string; screen: string[] } };
      expect(spawned.stderr).toBe('');
      // The turn stops on the question: the session needs the user.
      expect(out.wait?.outcome, `reports: ${reports.join(', ')}; screen:\n${out.wait?.screen.join('\n')}`).toBe('attention');
      expect(reports).toEqual(expect.arrayContaining(['working session.status', 'attention permission.asked']));
      const why = JSON.parse((await cli(['sessions', 'why', out.id!, '--json'], env)).stdout) as { state: string; channel: string; event?: string };
      expect(why).toMatchObject({ state: 'attention', channel: 'hooks', event: 'permission.asked' });
      expect(model.requests.length).toBeGreaterThan(0);

      const asked = JSON.parse((await cli(['sessions', 'question', out.id!, '--json'], env)).stdout) as {
        question: { text: string; choices: Array<{ label: string }> } | null;
      };
      expect(asked.question).toMatchObject({ text: 'Run `echo hi`?' });
      expect(asked.question!.choices.map((c) => c.label)).toEqual(['Allow once', 'Allow always', 'Reject']);
      const answered = await cli(['sessions', 'answer', out.id!, 'Allow once', '--json'], env);
      expect(answered.stderr).toBe('');
      // The command ran and the turn went on to its end.
      await waitFor(() => reports.includes('done session.status'), {
        what: `the turn's end (reports: ${reports.join(', ')})`,
        timeout: TURN_TIMEOUT_S * 1000,
        interval: 200,
      });
      // The command's result went back to the model.
      expect(model.requests.map((q) => q.kind)).toContain('continuation');
    },
  );
});
