// Find in scrollback, end to end in the real app under Xvfb: a word printed twice, a few lines
// apart, scrolls off the screen; Ctrl+Shift+F typed with xdotool opens the find bar, typing the
// word (in another case) scrolls back to the newer one and the screenshot shows it painted
// yellow; Enter moves the highlight up to the older one, Shift+Enter back down; Esc closes the
// bar and the highlight goes away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darkTheme } from '../../src/terminal/common/theme';
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

/** Lines between the two prints of the word: both fit on the screen once scrolled back. */
const GAP_LINES = 8;

/** Pixel rows that hold a long solid run of yellow: the current match is a yellow block as tall
 *  as a text row (other matches are a fainter yellow). */
function yellowRows(s: Shot): number {
  let n = 0;
  for (let y = 0; y < s.area.height; y++) if (s.longestRun((p) => near(p, yellow, 12), y, y + 1) >= 40) n++;
  return n;
}

/** The top pixel row of the current match's yellow block. */
function yellowTop(s: Shot): number {
  for (let y = 0; y < s.area.height; y++) if (s.longestRun((p) => near(p, yellow, 12), y, y + 1) >= 40) return y;
  return -1;
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
      await app.cleanup();
    }
    await display?.stop();
  });

  it('opens with Ctrl+Shift+F, scrolls back to a word that scrolled off, highlights it, and closes with Esc', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    const { id, read } = await app.focusedShell(PROMPT);
    const terminal: Area = await waitFor(
      () => {
        const a = terminalArea(app.screenshot('find-shell'), app.windowGeometry(win), bg);
        return a.width > 300 && a.height > 200 ? a : null;
      },
      { what: 'the terminal area' },
    );
    // The left half: the matches are at the left edge, the find bar (with its yellow-edged
    // field) sits in the top-right corner.
    const area: Area = { ...terminal, width: Math.round(terminal.width / 2) };

    // The word only exists in the output (the command line has it in two halves), then scrolls away.
    const word = `printf '%s-%s\\n' needle haystack`;
    await app.cli(['sessions', 'send', id, `${word}; seq 1 ${GAP_LINES}; ${word}; seq 1 ${FILLER_LINES}`, '--enter']);
    await waitFor(async () => (await read()).includes(`\n${FILLER_LINES}\n`), { what: 'the filler to finish' });
    expect(await read()).not.toContain('needle-haystack');
    const before = new Shot(app.screenshot('find-before'), area);
    expect(yellowRows(before)).toBe(0);

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', '--clearmodifiers', 'ctrl+shift+f');
    display.xdotool('type', '--delay', '30', 'NEEDLE-Hay');

    // Typing scrolled back to the newer match: a yellow block on screen. Each keystroke searches
    // again, so wait until two screenshots in a row show the same block (the typing is done).
    let last = '';
    const found = await waitFor(
      () => {
        const s = new Shot(app.screenshot('find-highlight'), area);
        const block = `${yellowTop(s)} ${s.longestRun((p) => near(p, yellow, 12))}`;
        const stable = block === last;
        last = block;
        return yellowRows(s) >= 6 && stable ? s : null;
      },
      { timeout: 10_000, interval: 150, what: 'the highlighted match on screen' },
    );
    const newer = yellowTop(found);
    // The highlight sits where the match is: near the left edge, where printf wrote the word.
    let minX = Infinity;
    for (let y = 0; y < found.area.height; y++) {
      for (let x = 0; x < found.area.width; x++) if (near(found.at(x, y), yellow, 12)) minX = Math.min(minX, x);
    }
    expect(minX).toBeLessThan(found.area.width * 0.2);
    // The session itself was not typed into: its screen still ends with the filler and a prompt.
    expect(await read()).not.toContain('NEEDLE');

    // Enter: the older match, GAP_LINES + 1 rows higher on the same screen; Shift+Enter: back.
    display.xdotool('key', 'Return');
    const older = await waitFor(
      () => {
        const top = yellowTop(new Shot(app.screenshot('find-older'), area));
        return top >= 0 && top < newer ? top : null;
      },
      { what: 'the highlight to move up to the older match' },
    );
    const rowHeight = (newer - older) / (GAP_LINES + 1);
    expect(rowHeight).toBeGreaterThan(10);
    expect(rowHeight).toBeLessThan(40);
    display.xdotool('key', 'shift+Return');
    await waitFor(() => yellowTop(new Shot(app.screenshot('find-newer'), area)) === newer, { what: 'the highlight back on the newer match' });

    display.xdotool('key', 'Escape');
    await waitFor(() => yellowRows(new Shot(app.screenshot('find-closed'), area)) === 0, { what: 'the highlight to go away' });
  });
});
