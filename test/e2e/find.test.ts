// Find in scrollback, end to end in the real app under Xvfb: a word printed earlier scrolls off
// the screen; Ctrl+Shift+F typed with xdotool opens the find bar, typing the word (in another
// case) and Enter scroll back to it, and the screenshot shows the current match painted yellow.
// Esc closes the bar and the highlight goes away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darkTheme } from '../../src/terminal/theme';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason } from './harness';
import { near, rgbOf, Shot, terminalArea, type Area } from './screenPixels';

const bg = rgbOf(darkTheme.background);
/** The current match's fill: the theme's yellow (see GridPainter). */
const yellow = rgbOf(darkTheme.ansi[3]!);
/** bash's default prompt ends in `$`, or `#` for root. */
const PROMPT = /[$#]$/m;
/** Lines printed after the word: far more than the ~35 rows of the default window. */
const FILLER_LINES = 300;

/** Pixel rows that hold a long solid run of yellow: a highlighted cell is a yellow block as tall
 *  as a row; the find field's 1-px yellow border adds at most two such rows. */
function yellowRows(s: Shot): number {
  let n = 0;
  for (let y = 0; y < s.area.height; y++) if (s.longestRun((p) => near(p, yellow, 12), y, y + 1) >= 40) n++;
  return n;
}

describe.skipIf(e2eSkipReason)('find in scrollback', () => {
  let display: Display;
  let app: AppUnderTest;

  beforeAll(async () => {
    display = await Display.start();
  });
  afterAll(async () => {
    if (app) {
      await app.stop();
      app.cleanup();
    }
    await display?.stop();
  });

  it('opens with Ctrl+Shift+F, scrolls back to a word that scrolled off, highlights it, and closes with Esc', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    await waitFor(async () => (await app.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const id = (await app.cli(['sessions', 'spawn', '--cwd', app.home])).stdout.trim();
    const read = async () => (await app.cli(['sessions', 'read', id])).stdout;
    await waitFor(async () => PROMPT.test(await read()), { what: 'the shell prompt' });
    expect((await app.cli(['sessions', 'focus', id])).code).toBe(0);
    const area: Area = await waitFor(() => {
      const a = terminalArea(app.screenshot('find-shell'), app.windowGeometry(win), bg);
      return a.width > 300 && a.height > 200 ? a : null;
    }, { what: 'the terminal area' });

    // The word only exists in the output (the command line has it in two halves), then scrolls away.
    await app.cli(['sessions', 'send', id, `printf '%s-%s\\n' needle haystack; seq 1 ${FILLER_LINES}`, '--enter']);
    await waitFor(async () => (await read()).includes(`\n${FILLER_LINES}\n`), { what: 'the filler to finish' });
    expect(await read()).not.toContain('needle-haystack');
    const before = new Shot(app.screenshot('find-before'), area);
    expect(yellowRows(before)).toBe(0);

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', '--clearmodifiers', 'ctrl+shift+f');
    display.xdotool('type', '--delay', '30', 'NEEDLE-Hay');
    display.xdotool('key', 'Return');

    // The view scrolled back: the current match is a yellow block on screen.
    const found = await waitFor(() => {
      const s = new Shot(app.screenshot('find-highlight'), area);
      return yellowRows(s) >= 6 ? s : null;
    }, { timeout: 10_000, interval: 100, what: 'the highlighted match on screen' });
    // The highlight sits where the match is: near the left edge, where printf wrote the word.
    let minX = Infinity;
    for (let y = 0; y < found.area.height; y++) {
      for (let x = 0; x < found.area.width; x++) if (near(found.at(x, y), yellow, 12)) minX = Math.min(minX, x);
    }
    expect(minX).toBeLessThan(found.area.width * 0.1);
    // The session itself was not typed into: its screen still ends with the filler and a prompt.
    expect(await read()).not.toContain('NEEDLE');

    display.xdotool('key', 'Escape');
    await waitFor(() => yellowRows(new Shot(app.screenshot('find-closed'), area)) === 0, { what: 'the highlight to go away' });
  });
});
