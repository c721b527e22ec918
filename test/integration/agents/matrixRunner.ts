// The release matrix: every agent recipe in ./recipes, each on the newest two releases npm has,
// run for real and offline. Each agent has its own test file beside this one (<id>.test.ts, one
// line calling describeRecipe), so one agent can be run alone and its record stands apart. Per
// release one scenario (scenario.ts) in one throwaway HOME (test/helpers/agentHome.ts), as a
// returning user would live it under Termio: a real termio-host (in this process) starts the agent through
// `termio sessions spawn --prompt`, and the loopback model server (test/helpers/modelServer.ts)
// has it run its shell tool (`touch probe.txt`), then ends the next turn in an API error.
//   launch     install (cached by version), the recipe's prepare, `termio hooks install` (for
//              an agent with hooks), the host, the spawn; the prompt reaches the model
//   working    the agent's own hook reports the turn's start (or, for an agent without hooks,
//              the progress report or screen rule its manifest reads, as `sessions why` names it)
//   attention  (when the agent asks) the permission question is read and answered through
//              `termio sessions question` / `answer`
//   done       the turn completes: the tool ran, the reply is on screen, the end-of-turn hook
//              reported and `termio sessions why` names it
//   failed     the next turn ends in the scripted API error: the agent reports it, and the
//              session needs you with the reason
//   resume     a host restart adopts the running agent (same pid), and a reboot-style relaunch
//              (agent and host ended) starts it again on its exact conversation; for an agent
//              whose resume forks (Continue), a turn after that and a second relaunch that shows it
// Each step is recorded (matrixResults.ts) as it ends; scripts/agent-matrix-doc.mjs renders the
// record. `npx vitest run test/integration/agents/claude.test.ts` runs one agent. A release a
// recipe knows to be broken on npm, or that cannot be installed, is a failing case named in the
// output, never a skip; where CI is set every recipe and release must run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/controlHost';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureNpmAgentRelease, newestReleases } from '../../helpers/agentCli';
import { isAlive, waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';
import { MATRIX_STEPS, beginRelease, recordAgentError, recordSeconds, recordStep, type MatrixStep } from './matrixResults';
import type { SessionInfo } from '../../../src/protocol/sessionInfo';
import type { AgentRecipe } from './recipe';
import { Scenario, TURN_TIMEOUT_MS, untilReady, type Why } from './scenario';

/** The prompt the first turn is started with. */
const PROMPT = 'Create the probe file';

/** The pid's command line (Linux /proc), or [] once it is gone. */
function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

const steps: Record<MatrixStep, (sc: Scenario) => Promise<void>> = {
  async launch(sc) {
    const r = sc.recipe;
    sc.started = Date.now();
    const installed = await ensureNpmAgentRelease(r.pkg, sc.version, r.candidates, r.extraPackages);
    if (!installed.ok) throw new Error(`${r.pkg}@${sc.version} could not be installed: ${installed.reason}`);
    // With a platform package from another release beside the shim, the binary reports that one's.
    if (!r.extraPackages) expect(installed.version).toContain(sc.version);
    await sc.setUp(installed.path);
    // An agent without hooks (its status comes from its progress reports or its screen) has none to install.
    if (sc.channel === 'hooks') await sc.agent!.installHooks(r.id);
    await sc.startHost();
    const spawned = await sc.termioJson<{ id: string }>(['sessions', 'spawn', '--agent', r.id, '--cwd', sc.agent!.project, '--prompt', PROMPT]);
    sc.id = spawned.id;
    await untilReady(sc, () => sc.model!.requests.some((q) => q.kind === 'turn' && q.prompt?.includes(PROMPT)), 'the prompt to reach the model');
  },

  async working(sc) {
    await sc.saw('working', sc.recipe.events.working);
  },

  async attention(sc) {
    const q = sc.recipe.question!;
    await sc.state('attention');
    // The title or screen may show the question a moment before its hook brings the words (Gemini
    // CLI 0.61.0): read after the hook, or the answer is refused as to a question since changed.
    if (sc.recipe.events.attention) await sc.saw('attention', sc.recipe.events.attention);
    type Asked = { question: { text: string; context: string; source: string; choices: Array<{ label: string }> } | null };
    const read = () => sc.termioJson<Asked>(['sessions', 'question', sc.id]);
    // Keys sent before the TUI draws its menu go to its prompt: wait for the menu on screen.
    const asked = q.hookOnly
      ? await read()
      : await waitFor(
          async () => {
            const a = await read();
            return a.question && a.question.source !== 'hook' ? a : null;
          },
          { what: 'the question on screen', timeout: TURN_TIMEOUT_MS, interval: 250 },
        );
    expect(asked.question, 'the question Termio read').not.toBeNull();
    // Answered before what it says is checked, so the turn goes on to done either way. A question
    // that changed since it was read (the screen finished drawing it) is read again.
    let first = true;
    await waitFor(
      async () => {
        if (!first) await read(); // the answer goes to the question last read
        first = false;
        const r = await sc.termio(['sessions', 'answer', sc.id, q.allow, '--json']);
        if (r.status === 0) return true;
        if (!r.stdout.includes('"questionChanged"')) throw new Error(`termio sessions answer exited ${r.status}: ${r.stdout}${r.stderr}`);
        return false;
      },
      { what: 'the answer taken', timeout: TURN_TIMEOUT_MS, interval: 250 },
    );
    sc.answered = true;
    if (q.mentions) expect(`${asked.question!.text}\n${asked.question!.context}`).toMatch(q.mentions);
    const event = sc.recipe.events.attention;
    if (event && sc.channel === 'hooks') expect(sc.reports).toContain(`attention ${event}`);
    else if (event) expect(sc.changed('attention', event), `states: ${sc.states.join(', ')}`).toBe(true);
  },

  async done(sc) {
    if (sc.recipe.question && !sc.answered) throw new Error('not reached: the permission question was not answered');
    await sc.shows(new RegExp(`Created it\\. ${sc.word}`), 'the final reply');
    expect(existsSync(join(sc.agent!.project, 'probe.txt')), 'the tool ran: probe.txt exists').toBe(true);
    await sc.saw('done', sc.recipe.events.done);
    await sc.state('done');
    expect(await sc.why()).toMatchObject({ state: 'done', channel: sc.whyChannel, event: sc.recipe.events.done });
  },

  async failed(sc) {
    const from = sc.reports.length;
    const fromRequest = sc.model!.requests.length;
    const sentAt = new Date().toISOString();
    const sent = await sc.termio(['sessions', 'send', sc.id, 'Try again', '--enter']);
    expect(sent.status, sent.stderr).toBe(0);
    await untilReady(sc, () => sc.model!.requests.slice(fromRequest).some((q) => q.kind === 'turn' && q.status >= 400), 'the failing turn to reach the model');
    const failedEvent = sc.recipe.events.failed;
    if (failedEvent === null) {
      // No hook fires on a failed turn: the error is only on screen, and the session stays done.
      await sc.shows(sc.recipe.failureReason, 'the error');
      expect(sc.reports.slice(from), 'hook reports since "Try again"').toEqual([]);
      await sc.state('done');
      return;
    }
    // Its hook, or (for an agent with no hook for a failed turn) the event or screen rule `sessions why` names.
    let why: Why | null = null;
    await waitFor(
      async () => {
        if (sc.reports.slice(from).some((x) => x.endsWith(` ${failedEvent}`))) return true;
        why = await sc.why();
        return sc.named(why) === failedEvent && why.at > sentAt;
      },
      {
        what: `${failedEvent} after "Try again"`,
        timeout: TURN_TIMEOUT_MS,
        interval: 500,
      },
    ).catch(async (e: Error) => {
      const asked = sc.model!.requests.slice(fromRequest).map((q) => `${q.kind} ${q.status}`);
      const reports = sc.reports.slice(from).join(', ') || 'none';
      throw new Error(`${e.message} (reports: ${reports}; why: ${JSON.stringify(why)}; model requests: ${asked.join(', ')})\nscreen:\n${await sc.screen()}`);
    });
    if (sc.channel === 'progress') {
      // No reason reaches Termio: the turn ends done like any other, the error only on screen.
      await sc.state('done');
      expect(await sc.screen()).toMatch(sc.recipe.failureReason);
      return;
    }
    if (sc.recipe.failureUnreported) {
      // Nothing tells this failed turn from a completed one: it ends done (the record says why).
      await sc.state('done');
      return;
    }
    await sc.state('attention');
    const after = await sc.why();
    expect(sc.named(after), `sessions why: ${JSON.stringify(after)}`).toBe(failedEvent);
    expect(after.failure?.reason, `sessions why: ${JSON.stringify(after)}`).toMatch(sc.recipe.failureReason);
  },

  async resume(sc) {
    // (a) A host restart: the holder keeps the agent running, the next host adopts it.
    const before = await sc.session();
    expect(sc.host!.host.holders.available, 'holders keep agents across a host restart here').toBe(true);
    await sc.agent!.stopHost(true);
    expect(isAlive(before.pid), 'the agent outlived its host').toBe(true);
    await sc.startHost();
    expect((await sc.session()).pid, 'adopted: the same agent process').toBe(before.pid);

    // (b) Reboot-style: the agent and the host end; the next host relaunches the saved tab on the
    // manifest's resume plan, as the app's start does.
    const plan = (await sc.session()).resume;
    const after = await relaunch(sc, before.pid);
    if (sc.recipe.resume === 'none') {
      expect(after.resume?.mode, `resume plan: ${JSON.stringify(after.resume)}`).toBe('fresh');
      return;
    }
    const bound = plan?.boundId;
    expect(bound, `the conversation the tab was bound to (plan: ${JSON.stringify(plan)})`).toBeTruthy();
    expect(plan?.argv, 'the plan names the conversation').toEqual(expect.arrayContaining([expect.stringContaining(bound!)]));
    expect(argvOf(after.pid).join(' '), "the relaunched agent's own command line").toContain(bound!);
    // A relaunch shows the startup dialogs again (Codex's untrusted-folder notice), answered alike.
    const shown = sc.recipe.resumedShows ?? new RegExp(sc.word);
    await untilReady(sc, async () => shown.test(await sc.screen()), `the earlier turn back on screen (${shown})`);
    if (!resumeForks(sc.recipe.id)) return;

    // (c) An agent whose resume forks (manifest resume.forks) goes on under a new id: a turn made
    // after the resume must come back at the next relaunch, so the tab must follow the fork.
    const later = `later${sc.word}`;
    sc.model!.play({ steps: [{ reply: `Noted. ${later}` }], then: sc.recipe.failure });
    const sent = await sc.termio(['sessions', 'send', sc.id, 'Remember this too', '--enter']);
    expect(sent.status, sent.stderr).toBe(0);
    await sc.shows(new RegExp(`Noted\\. ${later}`), 'the reply after the resume');
    const fork = await waitFor(
      async () => {
        const id = (await sc.session()).resume?.boundId;
        return id && id !== bound ? id : null;
      },
      { what: `the tab bound to the fork of ${bound}`, timeout: TURN_TIMEOUT_MS, interval: 500 },
    );
    const again = await relaunch(sc, after.pid);
    expect(argvOf(again.pid).join(' '), "the second relaunch's command line").toContain(fork);
    await untilReady(sc, async () => new RegExp(later).test(await sc.screen()), `the turn after the resume back on screen (${later})`);
  },
};

/** Does the agent's bundled manifest say its resume forks (goes on under a new id)? */
function resumeForks(agentId: string): boolean {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'agents', `${agentId}.json`), 'utf8')) as { resume?: { forks?: boolean } };
  return manifest.resume?.forks === true;
}

/** Ends the host and the agent `pid`, starts a host that restores the saved windows as the app's
 *  start does, and returns the relaunched tab. */
async function relaunch(sc: Scenario, pid: number): Promise<SessionInfo> {
  await sc.agent!.stopHost();
  await waitForExit(pid, 'the agent to end with its host', TURN_TIMEOUT_MS);
  const host = await sc.startHost();
  for (const w of host.host.savedWindows()) await host.host.restoreWindow(w);
  const after = await waitFor(async () => (await sc.session().catch(() => null)) ?? null, { what: 'the tab relaunched', timeout: TURN_TIMEOUT_MS });
  expect(after.pid).not.toBe(pid);
  return after;
}

/** The matrix of one agent: each of its newest two releases as one scenario of ordered steps. */
export function describeRecipe(recipe: AgentRecipe): void {
  describe(recipe.id, () => describeReleases(recipe));
}

function describeReleases(recipe: AgentRecipe): void {
  const releases = newestReleases(recipe.pkg);
  if (!releases.ok) {
    recordAgentError(recipe.id, recipe.pkg, releases.reason);
    it(`lists the newest two releases of ${recipe.pkg}`, () => {
      throw new Error(`cannot list the releases of ${recipe.pkg}: ${releases.reason}`);
    });
    return;
  }
  for (const version of releases.versions) {
    const broken = recipe.brokenOnNpm?.[version];
    if (broken) {
      // Named as its own case: it fails once npm mends the release, so the entry goes.
      it(`${recipe.pkg}@${version} is broken on npm: ${broken}`, { timeout: AGENT_CLI_INSTALL_TIMEOUT_MS * 2 }, async () => {
        beginRelease(recipe.id, recipe.pkg, version, { brokenOnNpm: broken });
        recordStep(recipe.id, version, 'launch', 'fail', `broken on npm: ${broken}`);
        const installed = await ensureNpmAgentRelease(recipe.pkg, version, recipe.candidates, recipe.extraPackages).catch((e: Error) => ({
          ok: false as const,
          reason: e.message,
        }));
        expect(installed.ok, `${recipe.pkg}@${version} installs and runs now: remove it from the recipe's brokenOnNpm`).toBe(false);
      });
      continue;
    }
    describe(`${recipe.pkg}@${version}`, () => {
      const sc = new Scenario(recipe, version);
      let launched = false;
      const order = MATRIX_STEPS.filter((s) => s !== 'attention' || recipe.question);
      for (const step of order) {
        const timeout = TURN_TIMEOUT_MS * (step === 'resume' ? 3 : 1) + (step === 'launch' ? AGENT_CLI_INSTALL_TIMEOUT_MS * 2 : 30_000);
        it(step, { timeout }, async () => {
          if (step === 'launch') {
            // The record starts when the release runs (a filtered-out release keeps its last one).
            beginRelease(recipe.id, recipe.pkg, version);
            if (!recipe.question) recordStep(recipe.id, version, 'attention', 'n/a', 'asks nothing before running the tool');
          }
          try {
            if (step !== 'launch' && !launched) throw new Error('not reached: the launch failed');
            await steps[step](sc);
            if (step === 'launch') launched = true;
            const unreported = step === 'failed' && recipe.failureUnreported;
            recordStep(recipe.id, version, step, 'pass', unreported ? `shown done: ${unreported}` : undefined);
          } catch (e) {
            recordStep(recipe.id, version, step, 'fail', (e as Error).message);
            throw e;
          }
        });
      }
      it('leaves no process behind', { timeout: 120_000 }, async () => {
        await sc.tearDown();
        if (launched) recordSeconds(recipe.id, version, Math.round((Date.now() - sc.started) / 1000));
      });
      afterAll(async () => {
        // A step that threw may have left the host up: tearDown again is a no-op when it ran.
        await sc.tearDown().catch(() => undefined);
      }, 120_000);
    });
  }
}
