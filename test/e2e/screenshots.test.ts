// The README's screenshots, taken from the current app with the real Claude Code CLI from npm,
// offline: a loopback endpoint in ANTHROPIC_BASE_URL answers a turn with a 400 error at once,
// answers "nightly" with a 429 usage limit that says when to try again (both fail the turn: its
// StopFailure hook makes the session attention with the failure's reason, drawn in red), and
// answers "deploy" with one Bash tool call, which Claude asks permission for (its PermissionRequest
// hook: the session needs you). `node scripts/screenshots.mjs` runs this with
// TERMIO_WRITE_SCREENSHOTS=1, which writes them into assets/screenshots; in the suite they go to
// test-output/screenshots. Each picture is checked to show what its caption says.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode } from '../helpers/agentCli';
import { FAKE_API_ERROR, startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { darkFailedColor } from '../../src/app/ui/stateColors';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, hexToRgb, readPixels, repoRoot, screenshotDir, useDesktop } from './harness';

const target = process.env.TERMIO_WRITE_SCREENSHOTS === '1' ? join(repoRoot, 'assets', 'screenshots') : screenshotDir;
/** The sidebar's width in the window (the terminal is right of it). */
const SIDEBAR_PX = 250;
/** A dummy key the CLI accepts as already approved (~/.claude.json lists its last 20 characters). */
const API_KEY = 'sk-ant-api03-termio-screenshots-offline-0000000000';

interface Info {
  id: string;
  state: string;
  status: { why: { failure?: { kind: string; reason: string } } } | null;
}

/** The real Claude Code on the login shell's PATH of a test HOME, pointed at the loopback endpoint. */
function installClaude(home: string, cliPath: string, project: string, api: FakeAnthropic): void {
  mkdirSync(join(home, 'bin'), { recursive: true });
  writeFileSync(
    join(home, 'bin', 'claude'),
    // No retries: a 429 ends the turn at once instead of backing off for minutes.
    `#!/bin/sh\nexec env -u CLAUDE_CONFIG_DIR -u ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL=${api.url} ANTHROPIC_API_KEY=${API_KEY} DISABLE_AUTOUPDATER=1 CLAUDE_CODE_MAX_RETRIES=0 "${cliPath}" "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(home, '.bash_profile'), `export PATH="${join(home, 'bin')}:$PATH"\n`);
  const claudeJson = {
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects: { [project]: { hasTrustDialogAccepted: true } },
  };
  writeFileSync(join(home, '.claude.json'), JSON.stringify(claudeJson));
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
  let api: FakeAnthropic | undefined;
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
    const claude = await ensureClaudeCode();
    if (!claude.ok) return ctx.skip(`the real Claude Code CLI is not available: ${claude.reason}`);
    api = await startFakeAnthropic({ askFor: 'deploy', command: 'npm run deploy', limitFor: 'nightly' });
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const project = join(home, 'webshop');
    mkdirSync(project);
    installClaude(home, claude.path, project, api);
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
    expect(apiError).toEqual({ kind: 'api', reason: `API error 400: ${FAKE_API_ERROR}` });
    expect(api.requests.some((r) => r.method === 'POST')).toBe(true);
    // A turn refused by a usage limit: stopped, with the time it lifts.
    await a.cli(['sessions', 'send', limited, 'start the nightly build', '--enter']);
    const limit = await waitFor(() => failureOf(a, limited), { timeout: 30_000, what: 'the usage limit to stop the turn' });
    expect(limit).toMatchObject({ kind: 'usage', reason: expect.stringMatching(/^stopped: usage limit, resets (\w{3} )?\d\d:\d\d$/) });
    // A turn that asks: Claude wants to run a command and waits for the user's yes.
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
    // The two failed rows are drawn in the failure's red, in the sidebar.
    const g = a.windowGeometry(win);
    const sidebar = readPixels(third, 0, 0, SIDEBAR_PX, g.height);
    expect(fractionNear(sidebar, hexToRgb(darkFailedColor), 24)).toBeGreaterThan(0);
    ctx.annotate(`screenshots: ${first}, ${second}, ${third}`);
    expect(api.requests.some((r) => r.toolResult)).toBe(false); // the permission question is still open
  }, 180_000);
});
