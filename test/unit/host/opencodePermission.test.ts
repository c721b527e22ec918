// OpenCode's permission prompt is attention, through its plugin: the newest release of npm's
// opencode-ai (the one the release matrix caches), set up as its opencode2 recipe's returning user
// (whose config asks before any bash command), under a real termio-host in a fresh HOME with
// `termio hooks install --agent opencode2`. The loopback model server answers the turn with one
// bash tool call, OpenCode asks, its `permission.asked` event reaches the host and `termio
// sessions why` names it; `termio sessions question` reads the command from the event's payload,
// and answering "Allow once" runs it. Offline: nothing reaches a vendor. Skips with the reason
// where the registry is out of reach, and fails instead where CI is set.
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { AgentHome } from '../../helpers/agentHome';
import { startModelServer } from '../../helpers/modelServer';
import { skipUnlessRequired } from '../../helpers/required';
import { waitFor } from '../../helpers/waitFor';
import { opencode2 } from '../../integration/agents/recipes/opencode2';

/** A cold start plus one turn of the real CLI takes ~15 s here; 120 s covers a loaded CI box. */
const TURN_TIMEOUT_S = 120;
/** The host's stop, ending what OpenCode left under the HOME, removing the HOME. */
const CLEANUP_TIMEOUT_MS = 90_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, CLEANUP_TIMEOUT_MS);

describe('OpenCode (npm opencode-ai), its newest release', () => {
  it(
    'reports its permission prompt as attention through its plugin, with the question that answers it',
    { timeout: (TURN_TIMEOUT_S + 30) * 1000 + AGENT_CLI_INSTALL_TIMEOUT_MS },
    async (ctx) => {
      const { pkg, candidates } = opencode2;
      const releases = newestReleases(pkg, 1);
      if (!releases.ok) return ctx.skip(skipUnlessRequired(`cannot list the releases: ${releases.reason}`) ?? undefined);
      const version = releases.versions[0]!;
      const installed = await ensureNpmAgentRelease(pkg, version, candidates);
      if (!installed.ok) return ctx.skip(`${pkg}@${version} is not available: ${installed.reason}`);
      const agent = new AgentHome(installed.path, 'termio-opencode-ask-');
      cleanups.push(() => agent.dispose());
      // Every turn calls the shell tool with `echo hi`.
      const model = await startModelServer({ steps: [], then: { tool: 'echo hi', reply: 'Done.', description: 'Say hi' } });
      cleanups.push(() => model.close());
      // The release matrix's returning user: the loopback provider, bash set to ask.
      Object.assign(agent.env, opencode2.prepare({ home: agent.home, project: agent.project, modelUrl: model.url, cli: installed.path, version }));
      await agent.installHooks('opencode2');
      const host = await agent.startHost();
      const reports: string[] = [];
      host.host.hooks.onReport((r) => reports.push(`${r.state} ${r.event}`));

      const spawned = await agent.termio(
        [
          'sessions',
          'spawn',
          '--agent',
          'opencode2',
          '--cwd',
          agent.project,
          '--prompt',
          'run echo hi',
          '--wait',
          '--timeout',
          String(TURN_TIMEOUT_S),
          '--json',
        ],
        (TURN_TIMEOUT_S + 10) * 1000,
      );
      const out = JSON.parse(spawned.stdout || '{}') as { id?: string; wait?: { outcome: string; screen: string[] } };
      expect(spawned.stderr).toBe('');
      // The turn stops on the question: the session needs the user.
      expect(out.wait?.outcome, `reports: ${reports.join(', ')}; screen:\n${out.wait?.screen.join('\n')}`).toBe('attention');
      expect(reports).toEqual(expect.arrayContaining(['working session.status', 'attention permission.asked']));
      const why = JSON.parse((await agent.termio(['sessions', 'why', out.id!, '--json'])).stdout) as { state: string; channel: string; event?: string };
      expect(why).toMatchObject({ state: 'attention', channel: 'hooks', event: 'permission.asked' });
      expect(model.requests.length).toBeGreaterThan(0);

      const asked = JSON.parse((await agent.termio(['sessions', 'question', out.id!, '--json'])).stdout) as {
        question: { text: string; choices: Array<{ label: string }> } | null;
      };
      expect(asked.question).toMatchObject({ text: 'Run `echo hi`?' });
      expect(asked.question!.choices.map((c) => c.label)).toEqual(['Allow once', 'Allow always', 'Reject']);
      const answered = await agent.termio(['sessions', 'answer', out.id!, 'Allow once', '--json']);
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
