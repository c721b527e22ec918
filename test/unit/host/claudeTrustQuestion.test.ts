// The real Claude Code from npm asking its folder-trust question under a real termio-host (in this
// process), on the newest two releases, set up as a user with live status: `termio hooks install
// --agent claude` in a fresh HOME, onboarding done, the project folder not trusted yet. No hook
// runs before the folder is trusted, so only the screen can say the session needs you: the
// question reads as attention, `termio sessions question` prints it with its choices (these
// releases draw them unnumbered, "No, exit" highlighted first), and `termio sessions answer`
// trusts the folder, after which Claude Code starts and its SessionStart hook reports. Offline:
// the question comes before any model request. Skips with the reason where the registry is out of
// reach, and fails instead where CI is set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { AgentHome } from '../../helpers/agentHome';
import { skipUnlessRequired } from '../../helpers/required';
import { waitFor } from '../../helpers/waitFor';
import { claude, CLAUDE_ENV, writeClaudeUser } from '../../integration/agents/recipes/claude';

/** Claude Code draws its first screen within a few seconds here; 60 s covers a loaded CI box. */
const START_TIMEOUT_MS = 60_000;
const { pkg: PKG, candidates: CANDIDATES } = claude;
const QUESTION = 'Is this a project you created or one you trust?';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, 60_000);

const releases = newestReleases(PKG);
describe(`${PKG}, the newest two releases`, () => {
  if (!releases.ok) {
    it('lists its newest two releases on npm', (ctx) => {
      ctx.skip(skipUnlessRequired(`cannot list the releases: ${releases.reason}`) ?? undefined);
    });
    return;
  }
  it.for(releases.versions)(
    '%s: its folder-trust question reads as attention with its choices, and is answered',
    { timeout: AGENT_CLI_INSTALL_TIMEOUT_MS + 4 * START_TIMEOUT_MS },
    async (version, ctx) => {
      const cli = await ensureNpmAgentRelease(PKG, version, CANDIDATES);
      if (!cli.ok) return ctx.skip(`${PKG}@${version} is not available: ${cli.reason}`);
      expect(cli.version).toContain(version);
      const agent = new AgentHome(cli.path, 'termio-claude-trust-');
      cleanups.push(() => agent.dispose());
      const { home, project } = agent;
      // A returning user, in a folder Claude has not seen.
      writeClaudeUser(home);
      Object.assign(agent.env, CLAUDE_ENV);
      const run = (...args: string[]) => agent.termio(args);

      await agent.installHooks('claude');
      const host = await agent.startHost();
      const reports: string[] = [];
      host.host.hooks.onReport((r) => reports.push(`${r.state} ${r.event}`));

      const spawned = await run('sessions', 'spawn', '--agent', 'claude', '--cwd', project, '--json');
      expect(spawned.stderr).toBe('');
      const id = (JSON.parse(spawned.stdout) as { id: string }).id;
      const record = () => host.registry.get(id)!;
      const screen = () => record().session.screenLines().join('\n');

      // A wait that times out shows the state and the screen as they were last.
      const until = (done: () => boolean, what: string) =>
        waitFor(
          () => {
            if (!done()) throw new Error(`state ${record().state}, hooks: ${reports.join(', ') || 'none'}, screen:\n${screen()}`);
            return true;
          },
          { what, timeout: START_TIMEOUT_MS },
        );
      await until(() => record().state === 'attention', 'the trust question to make the session need you');
      // No hook has run: the screen said so.
      expect(reports).toEqual([]);
      const why = JSON.parse((await run('sessions', 'why', id, '--json')).stdout) as { state: string; channel: string; event: string };
      expect(why).toMatchObject({ state: 'attention', channel: 'question', event: `“${QUESTION}”` });

      const asked = await run('sessions', 'question', id, '--json');
      expect(asked.status).toBe(0);
      const question = (
        JSON.parse(asked.stdout) as { question: { text: string; context: string; choices: Array<{ label: string; keys: string[]; highlighted: boolean }> } }
      ).question;
      expect(question.text).toBe(QUESTION);
      expect(question.context).toContain(project);
      const labels = question.choices.map((c) => c.label);
      expect(labels.sort()).toEqual(['No, exit', 'Yes, I trust this folder']);
      expect(question.choices.filter((c) => c.highlighted)).toHaveLength(1);
      const printed = await run('sessions', 'question', id);
      expect(printed.stdout).toContain(QUESTION);
      expect(printed.stdout).toMatch(/\d\. Yes, I trust this folder {3}\[/);

      const answered = await run('sessions', 'answer', id, 'Yes, I trust this folder', '--json');
      expect(answered.stderr).toBe('');
      expect(JSON.parse(answered.stdout)).toMatchObject({ ok: true, choice: 'Yes, I trust this folder' });
      // Trusted: Claude Code starts, its SessionStart hook reports, and it remembers the folder.
      await until(() => reports.includes('idle SessionStart'), 'the SessionStart hook after trusting');
      await until(() => record().state !== 'attention', 'the session to stop needing you');
      const remembered = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as { projects?: Record<string, { hasTrustDialogAccepted?: boolean }> };
      expect(remembered.projects?.[project]?.hasTrustDialogAccepted).toBe(true);
    },
  );
});
