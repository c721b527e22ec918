// The README's screenshots, taken from the current app with the real Claude Code CLI from npm,
// offline: the loopback model server in ANTHROPIC_BASE_URL answers a turn with a 400 error at once,
// answers "nightly" with a 429 usage limit that says when to try again (both fail the turn: its
// StopFailure hook makes the session attention with the failure's reason, drawn in red), and
// plays "deploy" as one Bash tool call, which Claude asks permission for (its PermissionRequest
// hook: the session needs you). `node scripts/screenshots.mjs` runs this with
// TERMIO_WRITE_SCREENSHOTS=1, which writes them into assets/screenshots; in the suite they go to
// test-output/screenshots. Each picture is checked to show what its caption says.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureNewestClaude } from '../integration/agents/recipes/claude';
import { startModelServer, type ModelServer } from '../helpers/modelServer';
import { darkFailedColor } from '../../src/app/ui/stateColors';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, hexToRgb, installRealClaude, readPixels, repoRoot, screenshotDir, useDesktop } from './harness';

const target = process.env.TERMIO_WRITE_SCREENSHOTS === '1' ? join(repoRoot, 'assets', 'screenshots') : screenshotDir;
/** The sidebar's width in the window (the terminal is right of it). */
const SIDEBAR_PX = 250;
/** A dummy key, approved as the user's (installRealClaude). */
const API_KEY = 'sk-ant-api03-termio-screenshots-offline-0000000000';
/** What the endpoint says when it refuses a turn, and the 429's message, as the CLI shows them. */
const API_ERROR = 'refused on purpose by the test endpoint';
const LIMIT_ERROR = 'You have reached your usage limit. Try again in 45 minutes.';

interface Info {
  id: string;
  state: string;
  status: { why: { failure?: { kind: string; reason: string } } } | null;
}

/** The window alone, cut out of the display's screenshot. */
function windowShot(app: AppUnderTest, win: string, file: string): string {
  const g = app.windowGeometry(win);
  const full = app.screenshot(`readme-${file}`);
  mkdirSync(target, { recursive: true });
  const out = join(target, file);
  const r = spawnSync('convert', [full, '-crop', `${g.width}x${g.height}+${g.x}+${g.y}`, '+repage', '-strip', out]);
  if (r.status !== 0) throw new Error(`convert failed: ${r.stderr.toString()}`);
  return out;
}

describe.skipIf(e2eSkipReason)('the README screenshots', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  let api: ModelServer | undefined;
  useDesktop({ size: '1280x800x24', shots: 'readme', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });
  afterAll(async () => {
    await api?.close();
  });

  const read = async (a: AppUnderTest, id: string) => (await a.cli(['sessions', 'read', id])).stdout;
  /** Once the terminal beside the sidebar shows the session's screen: its frame painted after
   *  `since` (TERMIO_TRACE_FRAMES logs each), and more than a blank grid in the picture (a view
   *  may paint its empty grid before the host's first frame arrives). */
  const shownAfter = async (a: AppUnderTest, win: string, id: string, since: number) => {
    await waitFor(
      () =>
        [...a.log().matchAll(/frame painted (\{.*\})/g)].some((m) => {
          const f = JSON.parse(m[1]!) as { id: string; at: number };
          return f.id === id && f.at > since;
        }),
      { what: `a frame of ${id} painted` },
    );
    await waitFor(
      () => {
        const g = a.windowGeometry(win);
        const px = readPixels(a.screenshot('readme-check'), g.x + SIDEBAR_PX, g.y, g.width - SIDEBAR_PX, g.height);
        return fractionNear(px, px[px.length - 1]!, 8) < 0.97;
      },
      { what: `the screen of ${id} drawn in the window` },
    );
  };
  const infoOf = async (a: AppUnderTest, id: string) =>
    (JSON.parse((await a.cli(['sessions', 'list', '--json'])).stdout) as { sessions: Info[] }).sessions.find((s) => s.id === id);
  const stateOf = async (a: AppUnderTest, id: string) => (await infoOf(a, id))?.state;
  /** The failure a session stopped on, once it is attention with one. */
  const failureOf = async (a: AppUnderTest, id: string) => {
    const s = await infoOf(a, id);
    return s?.state === 'attention' ? (s.status?.why.failure ?? null) : null;
  };

  it('real Claude Code after turns that failed, and a Claude session asking permission', async (ctx) => {
    const claude = await ensureNewestClaude();
    if (!claude.ok) return ctx.skip(`the real Claude Code CLI is not available: ${claude.reason}`);
    api = await startModelServer({ steps: [], then: { error: 400, message: API_ERROR } });
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const project = join(home, 'webshop');
    mkdirSync(project);
    // Pointed at the loopback endpoint, with no retries: a 429 ends the turn at once instead of
    // backing off for minutes.
    installRealClaude(home, claude.path, project, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: API_KEY, CLAUDE_CODE_MAX_RETRIES: '0' });
    app = await AppUnderTest.launch(display, { home, env: { TERMIO_TRACE_FRAMES: '1' } });
    const a = app;
    const win = await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    expect((await a.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);

    const spawnClaude = async () => (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project])).stdout.trim();
    const shell = (await a.cli(['sessions', 'spawn', '--cwd', project])).stdout.trim();
    await a.cli(['sessions', 'send', shell, 'git init -q . && git status --short --branch', '--enter']);
    const failed = await spawnClaude();
    const limited = await spawnClaude();
    const asking = await spawnClaude();
    for (const id of [failed, limited, asking])
      await waitFor(async () => (await read(a, id)).includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });

    // A turn that fails fast: the CLI shows the API's error, and its StopFailure hook ends the turn.
    await a.cli(['sessions', 'send', failed, 'summarise what this project does', '--enter']);
    // The error line may wrap: its start is what is looked for.
    await waitFor(
      async () => {
        const screen = await read(a, failed);
        if (!screen.includes('API Error: 400')) throw new Error(`screen: ${screen.trim().slice(-600)}`);
        return true;
      },
      { timeout: 30_000, what: 'the API error on screen' },
    );
    // Never done: a failed turn needs you, and says why.
    const apiError = await waitFor(() => failureOf(a, failed), { what: 'the failed turn to need you' });
    expect(apiError).toEqual({ kind: 'api', reason: `API error 400: ${API_ERROR}` });
    expect(api.requests.some((r) => r.method === 'POST')).toBe(true);
    // A turn refused by a usage limit: stopped, with the time it lifts.
    api.play({ steps: [], then: { error: 429, message: LIMIT_ERROR } });
    await a.cli(['sessions', 'send', limited, 'start the nightly build', '--enter']);
    const limit = await waitFor(() => failureOf(a, limited), { timeout: 30_000, what: 'the usage limit to stop the turn' });
    expect(limit).toMatchObject({ kind: 'usage', reason: expect.stringMatching(/^stopped: usage limit, resets (\w{3} )?\d\d:\d\d$/) });
    // A turn that asks: Claude wants to run a command and waits for the user's yes.
    api.play({ steps: [], then: { tool: 'npm run deploy', reply: 'Deployed.', description: 'Deploy the app' } });
    await a.cli(['sessions', 'send', asking, 'deploy it, ask first', '--enter']);
    await waitFor(async () => /Do you want to proceed\?/.test(await read(a, asking)), { timeout: 30_000, what: "Claude's permission question" });
    await waitFor(async () => (await stateOf(a, asking)) === 'attention', { what: 'the session to need you' });

    let since = Date.now();
    expect((await a.cli(['sessions', 'focus', failed])).code).toBe(0);
    await shownAfter(a, win, failed, since);
    const first = windowShot(a, win, 'termio-window.png');
    since = Date.now();
    expect((await a.cli(['sessions', 'focus', asking])).code).toBe(0);
    await shownAfter(a, win, asking, since);
    const second = windowShot(a, win, 'needs-you.png');
    since = Date.now();
    expect((await a.cli(['sessions', 'focus', limited])).code).toBe(0);
    await shownAfter(a, win, limited, since);
    const third = windowShot(a, win, 'failed.png');
    // The two failed rows carry the failure's red dot in the sidebar: a 10 px dot each, less its
    // "!", is well over 40 pixels of that red.
    const g = a.windowGeometry(win);
    const sidebar = readPixels(third, 0, 0, SIDEBAR_PX, g.height);
    expect(fractionNear(sidebar, hexToRgb(darkFailedColor), 24) * sidebar.length).toBeGreaterThan(2 * 40);
    ctx.annotate(`screenshots: ${first}, ${second}, ${third}`);
    expect(api.requests.some((r) => r.kind === 'continuation')).toBe(false); // the permission question is still open
  }, 180_000);
});
