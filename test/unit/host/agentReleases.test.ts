// Live status on the releases people run: the newest two releases on npm of Claude Code, Codex,
// Gemini CLI and OpenCode, each started by a real termio-host (in this process) in a fresh HOME, as a new
// user would: `termio hooks install --agent X`, then `termio sessions spawn --agent X --prompt
// … --wait`. The prompt is typed as the TUI expects (a bracketed paste, Return on its own), the
// agent's own hook reports working, the turn ends at once on a loopback model endpoint (see
// loopbackModel.ts) and its end-of-turn hook reports done; `termio sessions why` names that hook.
// Offline by design: nothing reaches a vendor. Processes a CLI leaves running under the HOME
// (Codex's app-server daemon) are ended. Skips with the reason where the registry is out of
// reach, and fails instead where CI is set.
import { skipUnlessRequired } from '../../helpers/required';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { createLogger } from '../../../src/app/services/log';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { repoRoot } from '../../helpers/controlHost';
import { startLoopbackModel, type LoopbackModel } from '../../helpers/loopbackModel';
import { endProcessesWithHome, processesWithHome } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';
import { CODEX_TEST_API_KEY as API_KEY, prepareCodexHome } from '../../helpers/codexLoopback';

/** A cold start plus one turn of a real CLI takes ~10 s here; 120 s covers a loaded CI box. */
const TURN_TIMEOUT_S = 120;
/** One `termio` command answers in a second or two; a full parallel run on 2 shared cores can
 *  starve a Node cold start for much longer, and the bound only stops a hung one. */
const CLI_TIMEOUT_MS = 60_000;
/** Cleaning up after a release: the host's stop, ending what the CLI left running under the HOME
 *  (Codex's app-server daemon and its update loop, which may start the daemon again) and removing
 *  the HOME (Codex copies its ~400 MB daemon release into it). Vitest's default 10 s for a hook
 *  is too short for that on a loaded machine. */
const CLEANUP_TIMEOUT_MS = 90_000;

interface Setup {
  home: string;
  project: string;
  model: LoopbackModel;
  cli: string;
}

interface AgentUnderTest {
  id: string;
  pkg: string;
  candidates: string[];
  model: 'refuse' | 'complete';
  /** Files a user who has run the CLI before has, and the environment its session needs. */
  prepare(s: Setup): Record<string, string>;
  working: string;
  done: string;
  /** The loopback endpoint refuses the turn and the end hook reports it as a failure: the
   *  session needs you (attention), with the API's error as the reason. */
  fails?: true;
}

const AGENTS: AgentUnderTest[] = [
  {
    id: 'claude',
    pkg: '@anthropic-ai/claude-code',
    candidates: ['node_modules/.bin/claude', `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`],
    model: 'refuse',
    prepare: ({ home, project, model }) => {
      // Onboarding done, this folder trusted and the key approved: no question before the prompt.
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          projects: { [project]: { hasTrustDialogAccepted: true } },
          customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        }),
      );
      return { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: model.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    },
    working: 'UserPromptSubmit',
    done: 'StopFailure',
    fails: true,
  },
  {
    id: 'codex',
    pkg: '@openai/codex',
    candidates: ['node_modules/.bin/codex'],
    model: 'complete',
    prepare: ({ home, model, cli }) => {
      prepareCodexHome(home, cli, model.url);
      return {};
    },
    working: 'UserPromptSubmit',
    done: 'Stop',
  },
  {
    id: 'gemini',
    pkg: '@google/gemini-cli',
    candidates: ['node_modules/.bin/gemini'],
    model: 'refuse',
    prepare: ({ home, model }) => {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify(
          {
            security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
            general: { disableAutoUpdate: true },
          },
          null,
          2,
        ),
      );
      return { GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: model.url, COLORTERM: 'truecolor' };
    },
    working: 'BeforeAgent',
    done: 'AfterAgent',
  },
  {
    // npm's `opencode-ai` publishes the event names of the `opencode2` manifest (session.status,
    // permission.asked). Its model is a provider of the user's config on the loopback endpoint,
    // through the Anthropic SDK the binary bundles: a 400 there ends the turn without retries.
    id: 'opencode2',
    pkg: 'opencode-ai',
    candidates: ['node_modules/.bin/opencode', `node_modules/opencode-${process.platform}-${process.arch}/bin/opencode`],
    model: 'refuse',
    prepare: ({ home, model }) => {
      mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'opencode', 'opencode.json'),
        JSON.stringify(
          {
            autoupdate: false,
            share: 'disabled',
            provider: {
              loopback: {
                npm: '@ai-sdk/anthropic',
                name: 'Termio loopback',
                options: { baseURL: `${model.url}/v1`, apiKey: API_KEY },
                models: { m: { name: 'Loopback model' } },
              },
            },
            model: 'loopback/m',
          },
          null,
          2,
        ),
      );
      return { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' };
    },
    working: 'session.status',
    done: 'session.status',
  },
];

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

for (const agent of AGENTS) {
  const releases = newestReleases(agent.pkg);
  describe(`${agent.pkg}, the newest two releases`, () => {
    if (!releases.ok) {
      // Under CI this fails (the release matrix must run there); elsewhere it skips, saying why.
      it('lists its newest two releases on npm', (ctx) => {
        ctx.skip(skipUnlessRequired(`cannot list the releases: ${releases.reason}`) ?? undefined);
      });
      return;
    }
    it.for(releases.versions)(
      `%s reports working then done through its hooks under Termio`,
      { timeout: (TURN_TIMEOUT_S + 30) * 1000 + AGENT_CLI_INSTALL_TIMEOUT_MS },
      async (version, ctx) => {
        const installed = await ensureNpmAgentRelease(agent.pkg, version, agent.candidates);
        if (!installed.ok) return ctx.skip(`${agent.pkg}@${version} is not available: ${installed.reason}`);
        expect(installed.version).toContain(version);
        const home = realpathSync(mkdtempSync(join(tmpdir(), `termio-${agent.id}-${version}-`)));
        cleanups.push(() => rmSync(home, { recursive: true, force: true }));
        // What the CLI writes to its temporary folder (Gemini's error reports, for one) goes with
        // the test, once its processes are ended; kept short, as the host's socket paths are made under it.
        const tmp = mkdtempSync(join(tmpdir(), 'tt-'));
        cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
        cleanups.push(async () => {
          // Codex's daemon left the session's process group: found by its HOME, ended, and gone.
          await endProcessesWithHome(home);
          expect(processesWithHome(home)).toEqual([]);
        });
        const project = join(home, 'project');
        mkdirSync(project);
        const model = await startLoopbackModel(agent.model);
        cleanups.push(() => model.close());
        const path = `${dirname(installed.path)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
        const env: NodeJS.ProcessEnv = {
          HOME: home,
          TERMIO_HOME: join(home, '.termio'),
          PATH: path,
          SHELL: '/bin/sh',
          LANG: 'C.UTF-8',
          TERMIO_HOST_IDLE_MS: '0',
          TMPDIR: tmp,
          ...agent.prepare({ home, project, model, cli: installed.path }),
        };

        const hooks = await cli(['hooks', 'install', '--agent', agent.id, '--json'], env);
        expect(hooks.stderr).toBe('');
        expect(hooks.status).toBe(0);

        const started = await HostProcess.start({ env, logger: createLogger(join(home, 'host.log')), idleExitMs: 0, path });
        if (!started.ok) throw new Error(started.message);
        const host = started.host;
        cleanups.push(() => host.stop('test over'));
        const states: string[] = [];
        host.registry.onStateChanged((c) => states.push(`${c.record.state} ${c.why}`));
        const reports: string[] = [];
        host.host.hooks.onReport((r) => reports.push(`${r.state} ${r.event}`));

        const spawned = await cli(
          ['sessions', 'spawn', '--agent', agent.id, '--cwd', project, '--prompt', 'say hi', '--wait', '--timeout', String(TURN_TIMEOUT_S), '--json'],
          env,
          (TURN_TIMEOUT_S + 10) * 1000,
        );
        const out = JSON.parse(spawned.stdout || '{}') as { id?: string; wait?: { outcome: string; screen: string[] } };
        expect(spawned.stderr).toBe('');
        // A refused turn may end the wait needing you (its failure report came first) or settled
        // (its idle title came a moment before the report: the pty and the hook socket race).
        expect(
          agent.fails ? ['settled', 'attention'] : ['settled'],
          `the turn did not settle; states: ${states.join(', ')}; reports: ${reports.join(', ')}; screen:\n${out.wait?.screen.join('\n')}`,
        ).toContain(out.wait?.outcome);
        const id = out.id!;
        // The agent's own hooks reported the turn: its start, then its end.
        expect(reports, `states: ${states.join(', ')}; hook server: ${JSON.stringify(host.host.hooks.stats)}`).toContain(`working ${agent.working}`);
        // The title may have shown the end a moment before the hook's report arrived.
        const end = `${agent.fails ? 'attention' : 'done'} ${agent.done}`;
        await waitFor(() => reports.includes(end), {
          what: `the ${agent.done} hook (reports: ${reports.join(', ')})`,
          timeout: TURN_TIMEOUT_S * 1000,
        });
        expect(states.map((x) => x.split(' ')[0])).toContain('working');

        const why = JSON.parse((await cli(['sessions', 'why', id, '--json'], env)).stdout) as { state: string; channel: string; event?: string };
        expect(why).toMatchObject({ channel: 'hooks', event: agent.done });
        // A refused turn is never done: it needs you, with the API's error as the reason (its idle
        // title may have ended the wait a moment before the report, which is why this is read now).
        if (agent.fails) expect(why).toMatchObject({ state: 'attention', failure: { kind: 'api', reason: expect.stringMatching(/^API error 400: /) } });
        expect((await cli(['sessions', 'why', id], env)).stdout).toContain(`hooks ${agent.done}`);
        // The prompt was the turn's: the model endpoint was asked, offline.
        expect(model.requests.length).toBeGreaterThan(0);
      },
    );
  });
}
