// Nothing dies with the host: the real app under Xvfb, sessions on real session holders. A shell
// counting every 50 ms and the real Claude Code at its prompt go through a kill -9 of termio-host
// (the app starts a new one by itself) and `termio host restart`: each time the same pids, the
// counter counting on (after a kill -9 it counted while no host ran), and the window shows the
// same screen and scrollback, pixel for pixel. And through an update: an earlier release of
// Termio, built from this repository's history, runs them on its own host and holders until this
// version's app starts and its version-skew dialog is answered; this host adopts them, holders and
// checkpoints of that release, with the same pids, the counter counting and the same screen. How
// long a new host takes to adopt held sessions is bench/holder.mjs's to measure, not this test's.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureEarlierRelease, installEarlierRelease, type EarlierRelease } from '../helpers/earlierRelease';
import { endProcessesWithHome, isAlive } from '../helpers/processes';
import { skipUnlessRequired } from '../helpers/required';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, type CliResult, Display, e2eSkipReason, homeWithRealClaude, readPixels, repoRoot, type Rgb, runCli, useDesktop } from './harness';

/**
 * The earlier release an update starts from: the last commit before checkpoints became a line of
 * JSON and then the screen as it is (version 2) and before holders said how much input they had
 * taken (`taken`). So this host reads that release's version-1 checkpoints and drives holders
 * that never send `taken`. Move it forward when the holder protocol or the checkpoint changes
 * again (git log -- native/termio-holder src/app/host/holders/checkpointFile.ts src/protocol/holderWire.ts).
 */
const EARLIER_RELEASE = 'e4d0f9b909707bd08c645d9385c2033dd421deff';
/** Building it takes seconds (tens on a starved machine), once: later runs take it from the
 *  cache. Only a hung build reaches this. */
const BUILD_TIMEOUT_MS = 180_000;

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** The terminal part of the window: right of the sidebar, above the last rows (where the cursor blinks). */
function terminalPixels(png: string, geom: { width: number; height: number }): Rgb[] {
  return readPixels(png, 270, 10, geom.width - 290, geom.height - 120);
}

function differing(a: Rgb[], b: Rgb[]): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i]!.r !== b[i]!.r || a[i]!.g !== b[i]!.g || a[i]!.b !== b[i]!.b) n++;
  return n;
}

/** The ticks the counter wrote to its log (each line: "tick N epoch-ms") stamped after `from` and before `to`. */
function ticksBetween(file: string, from: number, to: number): number {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => Number(l.split(' ')[2]))
    .filter((t) => t > from && t < to).length;
}

/** Each test: about a minute on 2 loaded cores (the real Claude Code's start, rounds of
 *  screenshots, host changes). Every wait inside has its own bound and names what it waited for;
 *  this stops a hang none of them covers within three times the usual run. */
const HOLDERS_TEST_MS = 180_000;

type Cli = (args: string[]) => Promise<CliResult>;

/** A shell loop writing "tick N epoch-ms" every 50 ms to its screen and to `file`. */
const counting = (file: string) => `i=0; while true; do echo "tick $i $(date +%s%3N)" | tee -a ${file}; i=$((i+1)); sleep 0.05; done`;
/** 400 lines, the last one yellow: a screen and pages of scrollback that stay as they are. */
const STATIC = 'seq 1 400; printf "\\033[1;33mstatic-end\\033[0m\\n"';

/** A screen's rows as `termio sessions read` prints them, down to the last one not empty. */
const rowsOf = (screen: string) => screen.replace(/\n+$/, '').split('\n');

/** The counter's log grows by a few more ticks (after `step`). */
async function countsOn(file: string, step: string): Promise<void> {
  const lines = readFileSync(file, 'utf8').split('\n').length;
  await waitFor(() => readFileSync(file, 'utf8').split('\n').length > lines + 2, { what: `the counter to go on after ${step}` });
}

describe.skipIf(e2eSkipReason)('agents that outlive the host', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ shots: 'holders', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  async function start(home: string): Promise<AppUnderTest> {
    const a = await AppUnderTest.launch(display, { home });
    app = a;
    await attached(a);
    return a;
  }

  /** The app's window is up and it has restored the host's sessions. */
  async function attached(a: AppUnderTest): Promise<void> {
    await a.waitForWindow();
    await waitFor(() => [...a.log().matchAll(/app started \{"pid":(\d+)[\s\S]*?sessions restored/g)].some((m) => Number(m[1]) === a.pid), {
      timeout: 20_000,
      what: 'the app to attach and restore',
    });
  }

  async function pidsOf(a: AppUnderTest): Promise<Map<string, number>> {
    const r = await a.cli(['sessions', 'list', '--json']);
    return new Map((JSON.parse(r.stdout) as { sessions: Array<{ id: string; pid: number }> }).sessions.map((s) => [s.id, s.pid]));
  }

  const hostLog = (home: string) => readFileSync(join(home, '.termio', 'logs', 'host.log'), 'utf8');
  const hostPids = (home: string) => [...hostLog(home).matchAll(/host listening .*"pid":(\d+)/g)].map((m) => Number(m[1]));

  /** A screenshot once two in a row agree (the frame has settled). */
  async function settledShot(a: AppUnderTest, name: string): Promise<string> {
    let last: Rgb[] | null = null;
    const geom = a.windowGeometry(await a.waitForWindow());
    return waitFor(
      () => {
        const png = a.screenshot(name);
        const px = terminalPixels(png, geom);
        const same = last !== null && differing(last, px) === 0;
        last = px;
        return same ? png : null;
      },
      { interval: 150, what: `a settled screen (${name})` },
    );
  }

  /** The static session's screen, then scrolled back a page: both pictures. With `like`, the live
   *  picture is waited for until it matches (the app's "host started again" note shows for 12 s). */
  async function pictures(a: AppUnderTest, still: string, name: string, like?: Rgb[]): Promise<[Rgb[], Rgb[]]> {
    expect((await a.cli(['sessions', 'focus', still])).code).toBe(0);
    const win = await a.waitForWindow();
    const geom = a.windowGeometry(win);
    let live: Rgb[] = [];
    await waitFor(
      async () => {
        live = terminalPixels(await settledShot(a, `${name}-live`), geom);
        return !like || differing(like, live) === 0;
      },
      { timeout: 40_000, interval: 500, what: `the same screen as before (${name})` },
    );
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', 'shift+Prior');
    await waitFor(() => differing(terminalPixels(a.screenshot(`${name}-scrolling`), geom), live) > 0, { what: `the view to scroll (${name})` });
    const scrolled = terminalPixels(await settledShot(a, `${name}-scrolled`), geom);
    display.xdotool('key', 'shift+Next');
    return [live, scrolled];
  }

  /** Runs a test's steps; when one fails, the HOME's logs go to test-output/<logs> (they say which
   *  step went wrong), and what the steps started before any app (which cleans up) is ended. */
  async function keepingLogs(home: string, logs: string, steps: () => Promise<void>): Promise<void> {
    try {
      await steps();
    } catch (e) {
      if (existsSync(join(home, '.termio', 'logs'))) cpSync(join(home, '.termio', 'logs'), join(repoRoot, 'test-output', logs), { recursive: true });
      throw e;
    } finally {
      if (!app) {
        await endProcessesWithHome(home);
        rmSync(home, { recursive: true, force: true });
      }
    }
  }

  it(
    'keeps a counter and the real Claude Code through a kill -9 of the host and a restart',
    async (ctx) => {
      const set = await homeWithRealClaude(ctx);
      if (!set) return;
      await keepingLogs(set.home, 'holders-logs', () => throughKillAndRestart(set.home, set.project));
    },
    HOLDERS_TEST_MS,
  );

  async function throughKillAndRestart(home: string, project: string): Promise<void> {
    const a = await start(home);
    const ticks = join(home, 'ticks.log');
    const counter = (await a.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await a.cli(['sessions', 'send', counter, counting(ticks), '--enter']);
    const still = (await a.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await a.cli(['sessions', 'send', still, STATIC, '--enter']);
    await waitFor(async () => (await a.cli(['sessions', 'read', still])).stdout.includes('static-end'), { what: 'the static output' });
    const agent = (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project])).stdout.trim();
    await waitFor(async () => (await a.cli(['sessions', 'read', agent])).stdout.includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    await waitFor(() => existsSync(ticks) && readFileSync(ticks, 'utf8').split('\n').length > 5, { what: 'the counter to count' });
    expect((await a.cli(['host', 'status'])).stdout).toMatch(/holders: on, 3 sessions held/);
    const pids = await pidsOf(a);
    const [live, scrolled] = await pictures(a, still, 'holders-before');

    const same = async (step: string) => {
      expect(await pidsOf(a)).toEqual(pids);
      for (const pid of pids.values()) expect(isAlive(pid)).toBe(true);
      await countsOn(ticks, step);
      const [l, s] = await pictures(a, still, `holders-after-${step}`, live);
      expect(differing(live, l)).toBe(0);
      expect(differing(scrolled, s)).toBe(0);
    };

    // 1. kill -9 of the host: the app starts a new one, which adopts every session.
    const first = hostPids(home).at(-1)!;
    const killedAt = Date.now();
    process.kill(first, 'SIGKILL');
    await a.waitForLog(/session host lost/);
    await a.waitForLog(/sessions restored .*"after":"host lost"/, 60_000);
    expect(hostLog(home)).toMatch(/host listening .*"adopted":3[,}]/);
    // The counter counted while no host held it: ticks stamped between the kill and the line in
    // which the new host reports its adoption (starting a host takes far longer than a 50 ms tick).
    const newHostAt = Date.parse([...hostLog(home).matchAll(/^(\S+) \S+ host listening /gm)].at(-1)![1]!);
    expect(ticksBetween(ticks, killedAt, newHostAt)).toBeGreaterThan(0);
    await same('kill');

    // 2. `termio host restart`: agents keep running.
    const restarted = await a.cli(['host', 'restart']);
    expect(restarted.stdout).toMatch(/agents kept running/);
    await waitFor(() => hostPids(home).length >= 3 && isAlive(hostPids(home).at(-1)!), { what: 'the restarted host' });
    await same('restart');
  }

  describe('an update from an earlier release', () => {
    let release: EarlierRelease = { ok: false, reason: 'not built' };
    beforeAll(async () => {
      release = await ensureEarlierRelease(EARLIER_RELEASE);
    }, BUILD_TIMEOUT_MS);

    it(
      "adopts the sessions an earlier release's host and holders run: same pids, the counter counting, the same screen",
      async (ctx) => {
        const built = release;
        if (!built.ok) return ctx.skip(skipUnlessRequired(built.reason) ?? undefined);
        const set = await homeWithRealClaude(ctx);
        if (!set) return;
        await keepingLogs(set.home, 'holders-update-logs', () => fromEarlierRelease(set.home, set.project, built));
      },
      HOLDERS_TEST_MS,
    );
  });

  async function fromEarlierRelease(home: string, project: string, release: { commit: string; dir: string }): Promise<void> {
    // Termio as it was installed before the update, in the HOME: its CLI starts its own host,
    // which runs every session on that release's holder.
    const older = join(home, 'older-termio');
    const olderVersion = installEarlierRelease(release, older);
    const env = AppUnderTest.envFor(display, home, join(home, '.termio'));
    const olderCli: Cli = (args) => runCli(join(older, 'bin', 'termio'), env, args, { timeout: 30_000 });
    const ticks = join(home, 'ticks.log');
    const counter = (await olderCli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    expect(hostLog(home)).toContain(`"version":"${olderVersion}"`);
    await olderCli(['sessions', 'send', counter, counting(ticks), '--enter']);
    const still = (await olderCli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await olderCli(['sessions', 'send', still, STATIC, '--enter']);
    const agent = (await olderCli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project])).stdout.trim();
    const screenOf = async (cli: Cli, id: string) => (await cli(['sessions', 'read', id])).stdout;
    await waitFor(async () => (await screenOf(olderCli, still)).includes('static-end'), { what: 'the static output' });
    await waitFor(async () => (await screenOf(olderCli, agent)).includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    await waitFor(() => existsSync(ticks) && readFileSync(ticks, 'utf8').split('\n').length > 5, { what: 'the counter to count' });
    expect((await olderCli(['host', 'status'])).stdout).toContain('holders: on, 3 sessions held');
    type Listed = { id: string; pid: number; state: string };
    const listed = async (cli: Cli) =>
      (JSON.parse((await cli(['sessions', 'list', '--json'])).stdout) as { sessions: Listed[] }).sessions.map(({ id, pid, state }) => ({ id, pid, state }));
    const before = await listed(olderCli);
    expect(before.map((s) => s.id)).toEqual([counter, still, agent]);
    const stillScreen = await screenOf(olderCli, still);

    // The update: this version's app finds the earlier host, asks, and restarts it; this host
    // adopts the holders. The still session's screen comes back from the earlier release's
    // checkpoint (a holder keeps only what came after its last one), the counter's from both.
    const a = await AppUnderTest.launch(display, { home });
    app = a;
    const cli: Cli = (args) => a.cli(args);
    const dialog = await a.waitForWindow('Termio');
    a.screenshot('holders-version-skew');
    display.xdotool('windowfocus', '--sync', dialog);
    display.xdotool('key', 'Return');
    await a.waitForLog(/session host restarted for this version/);
    await attached(a);
    expect(hostLog(home)).toContain(`"version":"${version}","adopted":3`);
    expect((await a.cli(['host', 'status'])).stdout).toContain(`termio-host ${version} `);
    expect(await listed(cli)).toEqual(before);
    for (const { pid } of before) expect(isAlive(pid)).toBe(true);
    await countsOn(ticks, 'the update');
    // The app's view has more rows than the 80×24 the CLI spawned with: the rows it adds on top
    // come from the scrollback the earlier release's checkpoint kept, the numbers before the first.
    const was = rowsOf(stillScreen);
    const shown = rowsOf(await screenOf(cli, still));
    expect(shown.length).toBeGreaterThan(was.length);
    const added = shown.length - was.length;
    expect(shown.slice(added)).toEqual(was);
    expect(shown.slice(0, added)).toEqual(Array.from({ length: added }, (_, i) => String(Number(was[0]) - added + i)));
    expect(await screenOf(cli, agent)).toContain('for shortcuts');
    // Typing reaches a program on the earlier release's holder.
    await cli(['sessions', 'send', still, 'echo typed-$((6*7))', '--enter']);
    await waitFor(async () => (await screenOf(cli, still)).includes('typed-42'), { what: 'the typed command to run' });
  }
});
