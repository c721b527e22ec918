// Real TUIs in the real app under Xvfb: vim, less and htop from Debian, and the Claude
// Code, Codex and Gemini CLIs from npm (offline, in a temporary HOME), each started from a shell
// session through the termio CLI. Each waits for the text that TUI draws, then checks a
// screenshot's pixels: the terminal area is not blank, and the TUI's own marks are painted
// (vim's blue `~` rows, less's reverse-video `(END)`, htop's coloured bars, the agents' boxes and rules).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darkTheme } from '../../src/terminal/common/theme';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureCodex, ensureNewestNpmAgentRelease, type AgentCli } from '../helpers/agentCli';
import { ensureNewestClaude, writeClaudeUser } from '../integration/agents/recipes/claude';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason } from './harness';
import { blueish, colourful, near, rgbOf, Shot, terminalArea, type Area } from './screenPixels';

const bg = rgbOf(darkTheme.background);
const fg = rgbOf(darkTheme.foreground);

/** A TUI draws its first screen in well under a second here; the agent CLIs (Node start-up plus a
 *  network check that fails fast offline) in 2–6 s. 30 s covers a loaded 2-core box. */
const DRAW_TIMEOUT_MS = 30_000;
/** bash's default prompt ends in `$`, or `#` for root. */
const PROMPT = /[$#]$/m;

describe.skipIf(e2eSkipReason)('real TUIs in the real app', () => {
  let display: Display;
  let app: AppUnderTest;
  let project: string;
  let area: Area;
  const clis: Record<'claude' | 'codex' | 'gemini', AgentCli> = {
    claude: { ok: false, reason: 'not looked for yet' },
    codex: { ok: false, reason: 'not looked for yet' },
    gemini: { ok: false, reason: 'not looked for yet' },
  };

  beforeAll(
    async () => {
      clis.claude = await ensureNewestClaude();
      // The newest release of each, as users get it, each cached in a folder of its own.
      clis.codex = await ensureCodex();
      clis.gemini = await ensureNewestNpmAgentRelease('@google/gemini-cli', ['node_modules/.bin/gemini']);

      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-tuis-'));
      project = join(home, 'project');
      mkdirSync(project);
      // What a returning user of each CLI has, so the first screen is the CLI's own and not a
      // first-run wizard: Claude's onboarding done and this folder trusted; Gemini's folder trust off.
      writeClaudeUser(home, { trusted: [project] });
      mkdirSync(join(home, '.gemini'));
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { folderTrust: { enabled: false } } }));
      writeFileSync(join(project, 'notes.txt'), 'Termio renders vim.\nSecond line.\n');
      // Twelve plain lines, then one long line of bright white on blue (shown by less -R).
      const lines = Array.from({ length: 12 }, (_, i) => `less line ${i + 1}: the quick brown fox`);
      lines.push(`\x1b[97;44m${'text on a blue background, every glyph inside its cell '.repeat(2).trim()}\x1b[0m`);
      writeFileSync(join(project, 'short.txt'), lines.join('\n') + '\n');

      display = await Display.start();
      app = await AppUnderTest.launch(display, { home });
      const win = await app.waitForWindow();
      await waitFor(async () => (await app.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
      // An idle shell shows where the terminal sits in the window.
      const id = await shell();
      await waitFor(async () => PROMPT.test(await read(id)), { what: 'the shell prompt' });
      const geo = app.windowGeometry(win);
      area = await waitFor(
        () => {
          const a = terminalArea(app.screenshot('tuis-shell'), geo, bg);
          return a.width > 300 && a.height > 200 ? a : null;
        },
        { what: 'the terminal area painted in the theme background' },
      );
      await app.cli(['sessions', 'close', id]);
    },
    3 * AGENT_CLI_INSTALL_TIMEOUT_MS + 30_000,
  );

  afterAll(async () => {
    if (app) {
      await app.stop();
      await app.cleanup();
    }
    await display?.stop();
  });

  async function shell(): Promise<string> {
    const r = await app.cli(['sessions', 'spawn', '--cwd', project]);
    if (r.code !== 0) throw new Error(`sessions spawn: ${r.stderr}`);
    return r.stdout.trim();
  }

  async function read(id: string): Promise<string> {
    return (await app.cli(['sessions', 'read', id])).stdout;
  }

  /**
   * Types `command` into a fresh shell tab, shows that tab, waits for `drawn` on the screen
   * text, then takes screenshots until `painted` holds on the pixels (the view paints within a
   * frame of the text changing, the screenshot may still catch the frame before).
   */
  async function runTui(name: string, command: string, drawn: (text: string) => boolean, painted: (s: Shot, text: string) => boolean) {
    const id = await shell();
    await waitFor(async () => PROMPT.test(await read(id)), { what: `the shell prompt for ${name}` });
    const sent = await app.cli(['sessions', 'send', id, command, '--enter']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await app.cli(['sessions', 'focus', id])).code).toBe(0);
    let text = '';
    try {
      text = await waitFor(
        async () => {
          const t = await read(id);
          return drawn(t) ? t : null;
        },
        { timeout: DRAW_TIMEOUT_MS, interval: 100, what: `${name} to draw its first screen` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nscreen:\n${await read(id)}`);
    }
    let shot: Shot | null = null;
    try {
      shot = await waitFor(
        () => {
          const s = new Shot(app.screenshot(`tui-${name}`), area);
          return painted(s, text) ? s : null;
        },
        { timeout: 5_000, interval: 50, what: `${name}'s screen painted` },
      );
    } catch {
      shot = new Shot(app.screenshot(`tui-${name}`), area);
    }
    return { id, text, shot, close: () => app.cli(['sessions', 'close', id]) };
  }

  /** Not a blank page: some of the area is ink (vim's mostly empty screen has ~0.6 %), in several colours. */
  function expectDrawn(s: Shot): void {
    expect(s.fraction((p) => !near(p, bg))).toBeGreaterThan(0.003);
    expect(s.distinctColours()).toBeGreaterThan(8);
  }

  it('vim: `~` filler rows in blue and the file name in the status line', async () => {
    const tildes = (t: string) => t.split('\n').filter((l) => l === '~').length;
    const blueRows = (s: Shot) => s.bands(blueish, 0, Math.round(s.area.width * 0.05)).length;
    const r = await runTui(
      'vim',
      'vim notes.txt',
      (t) => tildes(t) > 10 && t.includes('"notes.txt"') && t.includes('Termio renders vim.'),
      (s, t) => blueRows(s) >= tildes(t) - 1,
    );
    expectDrawn(r.shot);
    // One band of blue ink per `~` row at the left edge (give or take the one under the cursor).
    expect(Math.abs(blueRows(r.shot) - tildes(r.text))).toBeLessThanOrEqual(1);
    await r.close();
  });

  it('less: the file, a coloured line whose text stays on its cells, and a reverse-video (END)', async () => {
    const r = await runTui(
      'less',
      'less -R short.txt',
      (t) => t.includes('less line 12: the quick brown fox') && t.includes('every glyph inside its cell') && t.includes('(END)'),
      // (END) is in standout (reverse video): a solid block of the foreground colour, wider
      // than any glyph stroke.
      (s) => s.longestRun((p) => near(p, fg, 10)) >= 30,
    );
    expectDrawn(r.shot);
    expect(r.shot.longestRun((p) => near(p, fg, 10))).toBeGreaterThanOrEqual(30);
    // Twelve plain rows of text, each a band of ink (the coloured rows below may touch the last).
    expect(r.shot.bands((p) => !near(p, bg, 30)).length).toBeGreaterThanOrEqual(12);
    // The blue line: its text is laid on the cell grid, so no glyph pokes out past the end of
    // the blue cells (text drawn with the font's own advance instead of the cell width drifts
    // right by a fraction of a pixel per character: ~15 px over these 111 characters).
    const blue = rgbOf(darkTheme.ansi[4]!);
    const [band] = r.shot.bands((p) => near(p, blue, 10));
    expect(band, 'a band of blue background').toBeDefined();
    let blueEnd = 0;
    let inkEnd = 0;
    for (let y = band![0]; y < band![1]; y++) {
      for (let x = 0; x < r.shot.area.width; x++) {
        const p = r.shot.at(x, y);
        if (near(p, blue, 10)) blueEnd = Math.max(blueEnd, x);
        else if (!near(p, bg, 10)) inkEnd = Math.max(inkEnd, x);
      }
    }
    expect(blueEnd).toBeGreaterThan(r.shot.area.width * 0.5);
    expect(inkEnd).toBeLessThanOrEqual(blueEnd + 1);
    await app.cli(['sessions', 'send', r.id, 'q']);
    await r.close();
  });

  it('htop: header meters and coloured bars', async () => {
    const r = await runTui(
      'htop',
      'htop',
      (t) => /Load average/.test(t) && /Mem\[/.test(t) && /PID/.test(t),
      (s) => s.fraction(colourful) > 0.01,
    );
    expectDrawn(r.shot);
    // Meters, the header row and the function-key bar are coloured.
    expect(r.shot.fraction(colourful)).toBeGreaterThan(0.01);
    // The process list's header row is a full-width coloured fill.
    expect(r.shot.longestRun(colourful)).toBeGreaterThan(r.shot.area.width * 0.5);
    await r.close();
  });

  /** Box borders are drawn as geometry on the grid: one unbroken line of pixels across the box. */
  const border = (s: Shot) => s.longestRun((p) => !near(p, bg, 30)) > s.area.width * 0.5;
  const agents: Array<{ key: keyof typeof clis; name: string; drawn: (t: string) => boolean; painted: (s: Shot) => boolean; what: string }> = [
    {
      key: 'claude',
      name: 'claude-code',
      // Its mascot beside "Claude Code v…" (its newest releases draw no welcome box), then the prompt `❯`
      // between two rules across the terminal.
      drawn: (t) => t.includes('Claude Code v') && /^─{40,}\n❯/m.test(t),
      painted: (s) => border(s) && s.fraction(colourful) > 0.005,
      what: 'the rules around its prompt unbroken across the terminal, and its mascot in orange',
    },
    {
      key: 'codex',
      name: 'codex',
      drawn: (t) => t.includes('Welcome to Codex') && t.includes('Sign in with ChatGPT'),
      // The selected sign-in choice is in colour: a few hundred cyan glyph pixels.
      painted: (s) => s.fraction(colourful) * s.px.length > 150,
      what: 'its sign-in chooser with the selected choice in colour',
    },
    {
      key: 'gemini',
      name: 'gemini',
      drawn: (t) => t.includes('Gemini CLI') && t.includes('╭') && t.includes('Sign in with Google'),
      // The sign-in dialog's box, and the selected choice on a coloured background.
      painted: (s) => border(s) && s.longestRun(colourful) > 100,
      what: 'its sign-in box with an unbroken border and the selected choice highlighted',
    },
  ];
  for (const a of agents) {
    it(`${a.name}: draws its first screen offline`, async (ctx) => {
      const cli = clis[a.key];
      if (!cli.ok) return ctx.skip(`${a.name} is not installed: ${cli.reason}`);
      // Self-updates off: one would run npm install -g on this machine.
      const r = await runTui(a.name, `DISABLE_AUTOUPDATER=1 ${cli.path}`, a.drawn, a.painted);
      expectDrawn(r.shot);
      expect(a.painted(r.shot), a.what).toBe(true);
      await r.close();
    });
  }
});
