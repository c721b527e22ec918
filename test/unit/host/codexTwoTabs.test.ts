// Two Termio tabs running the real Codex CLI in one folder. Codex runs its hooks in one detached
// `codex app-server` daemon per HOME, started by the first tab in the project folder and carrying
// that tab's environment (its TERMIO_SESSION and secret) for every tab it serves after. Each tab
// submits a prompt; its UserPromptSubmit (working) and Stop (done) reports must reach that tab and
// only that tab, and `termio sessions why` names the hook for each. The release matrix's rig
// (test/helpers/agentHome.ts): a real termio-host in this process, a fresh HOME, `termio hooks
// install`, `termio sessions spawn --prompt … --wait`, the loopback model server; offline. The
// daemon is ended by its HOME afterwards. Skips with the reason where the registry is out of reach, and
// fails instead where CI is set.
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { AgentHome } from '../../helpers/agentHome';
import { startModelServer } from '../../helpers/modelServer';
import { skipUnlessRequired } from '../../helpers/required';
import { waitFor } from '../../helpers/waitFor';
import { codex, signInCodex } from '../../integration/agents/recipes/codex';

/** A cold start plus one turn of Codex takes ~10 s here; 90 s covers a loaded CI box. */
const TURN_TIMEOUT_S = 90;
/** The Stop hook's report after the turn settled: Codex runs the hook as it ends the turn, and
 *  the title may show the end a moment before the report arrives (one reporter call). */
const STOP_AFTER_SETTLED_MS = 20_000;
/** One tab: the spawn waiting out its turn (plus the CLI's own start), then its Stop report. */
const TAB_BOUND_MS = (TURN_TIMEOUT_S + 10) * 1000 + STOP_AFTER_SETTLED_MS;
/** The test: installing the release, the two tabs one after the other, and 30 s for the host,
 *  the hooks' install and `sessions why`. */
const TEST_BOUND_MS = AGENT_CLI_INSTALL_TIMEOUT_MS + 2 * TAB_BOUND_MS + 30_000;
/** The host's stop, ending Codex's daemon (and its update loop) and removing the HOME (Codex
 *  copies its ~400 MB daemon release into it): longer than vitest's default 10 s on a loaded box. */
const CLEANUP_TIMEOUT_MS = 90_000;

/** A hook report the tracker applied: the tab it was credited to, its event, and what it says. */
interface Applied {
  tab: string;
  event: string;
  conversation: string | null;
  prompt: string | null;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, CLEANUP_TIMEOUT_MS);

const releases = newestReleases(codex.pkg);
describe('two tabs of the real Codex in one folder (one app-server daemon)', () => {
  if (!releases.ok) {
    it('lists the newest releases on npm', (ctx) => {
      ctx.skip(skipUnlessRequired(`cannot list the releases: ${releases.reason}`) ?? undefined);
    });
    return;
  }
  it.for(releases.versions)("%s: each tab's hook reports reach that tab, never the other", { timeout: TEST_BOUND_MS }, async (version, ctx) => {
    const installed = await ensureNpmAgentRelease(codex.pkg, version, codex.candidates);
    if (!installed.ok) return ctx.skip(`${codex.pkg}@${version} is not available: ${installed.reason}`);
    const agent = new AgentHome(installed.path, `termio-codex2-${version}-`);
    cleanups.push(() => agent.dispose());
    // Every turn completes: Codex runs no hook when a turn fails, so a Stop needs a turn that ends well.
    const model = await startModelServer({ steps: [], then: { reply: 'Hello from the loopback model.' } });
    cleanups.push(() => model.close());
    // Signed in on the loopback provider; the project never asked about, so Codex asks nothing.
    signInCodex(agent.home, installed.path, model.url);
    await agent.installHooks('codex');
    const host = await agent.startHost();
    const tracker = host.host.tracker;
    const received: string[] = [];
    host.host.hooks.onReport((r) => received.push(`${r.session} ${r.event}`));
    const applied: Applied[] = [];
    tracker.onHookDetails(({ sessionId, report }) => {
      const p = JSON.parse(report.payload) as { session_id?: string; prompt?: string };
      applied.push({ tab: sessionId, event: report.event, conversation: p.session_id ?? null, prompt: p.prompt ?? null });
    });
    const diagnose = () =>
      `received: ${received.join(', ')}; applied: ${JSON.stringify(applied)}; ignored: ${JSON.stringify(tabs.map((t) => tracker.lastIgnored(t)))}`;
    const tabs: string[] = [];

    for (const name of ['A', 'B']) {
      const spawned = await agent.termio(
        [
          'sessions',
          'spawn',
          '--agent',
          'codex',
          '--cwd',
          agent.project,
          '--prompt',
          `say hi from tab ${name}`,
          '--wait',
          '--timeout',
          String(TURN_TIMEOUT_S),
          '--json',
        ],
        (TURN_TIMEOUT_S + 10) * 1000,
      );
      expect(spawned.stderr).toBe('');
      const out = JSON.parse(spawned.stdout || '{}') as { id?: string; wait?: { outcome: string; screen: string[] } };
      tabs.push(out.id!);
      expect(out.wait?.outcome, `tab ${name}'s turn did not settle; ${diagnose()}; screen:\n${out.wait?.screen.join('\n')}`).toBe('settled');
      const tab = out.id!;
      // The tab's own prompt and the end of its turn were credited to it (the title may show
      // the end a moment before the Stop hook's report arrives).
      await waitFor(() => applied.some((a) => a.tab === tab && a.event === 'Stop'), {
        what: `tab ${name}'s Stop hook credited to it (${diagnose()})`,
        timeout: STOP_AFTER_SETTLED_MS,
      });
      expect(
        applied.filter((a) => a.event === 'UserPromptSubmit' && a.prompt === `say hi from tab ${name}`).map((a) => a.tab),
        diagnose(),
      ).toEqual([tab]);
      const why = JSON.parse((await agent.termio(['sessions', 'why', tab, '--json'])).stdout) as { channel: string; event?: string };
      expect(why, diagnose()).toMatchObject({ channel: 'hooks', event: 'Stop' });
      expect((await agent.termio(['sessions', 'why', tab])).stdout).toContain('hooks Stop');
    }
    const [a, b] = tabs as [string, string];
    // One daemon served both tabs with tab A's environment: every report named tab A, so only
    // its conversation could tie tab B's to tab B.
    expect(received.length, diagnose()).toBeGreaterThan(0);
    expect(
      received.filter((r) => !r.startsWith(`${a} `)),
      `a report named tab B itself; the shared-daemon case was not exercised; ${diagnose()}`,
    ).toEqual([]);
    // Each conversation's reports went to one tab, its own: the one the host bound it to.
    const conversationOf = (tab: string) => host.host.store.getSession(tab)?.conversationId ?? null;
    expect(conversationOf(a)).not.toBeNull();
    expect(conversationOf(b)).not.toBeNull();
    expect(conversationOf(a)).not.toBe(conversationOf(b));
    for (const x of applied) expect(x.conversation === null || x.conversation === conversationOf(x.tab), `${JSON.stringify(x)}; ${diagnose()}`).toBe(true);
    expect(applied.filter((x) => x.tab === a && x.conversation === conversationOf(b))).toEqual([]);
    expect(applied.filter((x) => x.tab === b && x.conversation === conversationOf(a))).toEqual([]);
    // Nothing was dropped, and tab B's turn left tab A's status as its own turn ended it.
    expect([tracker.lastIgnored(a), tracker.lastIgnored(b)], diagnose()).toEqual([null, null]);
    expect(JSON.parse((await agent.termio(['sessions', 'why', a, '--json'])).stdout)).toMatchObject({ channel: 'hooks', event: 'Stop' });
    expect(model.requests.length).toBeGreaterThan(0);
  });
});
