// The grid painter in the real app under Xvfb: a screen of CJK, colour emoji, combining marks and
// mixed styles, printed by a shell, must land on its cells. A row of ten red cells measures the
// grid on the screenshot; each check then looks inside the cells a character owns: CJK ink in
// both cells of each wide character, emoji colour inside their two cells and nowhere outside,
// coloured and underlined text in its columns, ASCII after wide characters on its own column, and
// glyphs out to the grid's right edge.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darkTheme } from '../../src/terminal/common/theme';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, type Rgb } from './harness';
import { colourful, near, rgbOf, Shot, terminalArea, type Area } from './screenPixels';

const bg = rgbOf(darkTheme.background);
const PROMPT = /[$#]$/m;
/** Channel distance from the background beyond which a pixel is ink. */
const INK = 40;

const ink = (p: Rgb): boolean => !near(p, bg, INK);
const red = (p: Rgb): boolean => p.r > 120 && p.r > p.g + 60 && p.r > p.b + 60;
const green = (p: Rgb): boolean => p.g > 100 && p.g > p.r + 40 && p.g > p.b + 20;

// Rows of the test screen (after `clear`). Row 0 calibrates: ten cells on a red background.
const SCREEN = [
  '\x1b[41m          \x1b[0m',
  '日本語テキスト|X',
  '😀🎉👍 ok',
  '\x1b[1;31mbold red\x1b[0m \x1b[3;32mitalic green\x1b[0m \x1b[4munder\x1b[0m e\u0301a\u0308',
  '漢字\x1b[44m한국어\x1b[0m😀A',
  // Wraps over the whole width: glyphs reach the grid's right edge (row 5 and on).
  'W'.repeat(400),
];

describe.skipIf(e2eSkipReason)('painting CJK, emoji and mixed styles', () => {
  let display: Display;
  let app: AppUnderTest;
  let shot: Shot;
  let grid: { x0: number; y0: number; cellW: number; cellH: number };
  let areaWidth = 0;

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-paint-'));
    writeFileSync(join(home, 'screen.txt'), SCREEN.join('\n') + '\n');
    display = await Display.start();
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const r = await app.cli(['sessions', 'spawn', '--cwd', home]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    const read = async () => (await app.cli(['sessions', 'read', id])).stdout;
    await waitFor(async () => PROMPT.test(await read()), { what: 'the shell prompt' });
    expect((await app.cli(['sessions', 'focus', id])).code).toBe(0);
    const area: Area = await waitFor(
      () => {
        const a = terminalArea(app.screenshot('paint-shell'), app.windowGeometry(win), bg);
        return a.width > 300 && a.height > 200 ? a : null;
      },
      { what: 'the terminal area' },
    );
    expect((await app.cli(['sessions', 'send', id, 'clear; cat screen.txt', '--enter'])).code).toBe(0);
    await waitFor(async () => (await read()).includes('한국어'), { what: 'the screen printed' });
    // The screenshot may catch the frame before: wait for the calibration row and the last row.
    shot = await waitFor(
      () => {
        const s = new Shot(app.screenshot('paint-cjk-emoji'), area);
        const reds = s.bands(red);
        return reds.length > 0 && s.bands((p) => p.b > p.r + 60 && p.b > 120).length > 0 ? s : null;
      },
      { timeout: 5_000, interval: 50, what: 'the screen painted' },
    );
    const [y0, y1] = shot.bands(red)[0]!;
    let x0 = -1;
    let x1 = -1;
    for (let x = 0; x < area.width; x++) {
      if (red(shot.at(x, y0 + 1))) {
        if (x0 < 0) x0 = x;
        x1 = x + 1;
      }
    }
    grid = { x0, y0, cellW: (x1 - x0) / 10, cellH: y1 - y0 };
    areaWidth = area.width;
  }, 60_000);

  afterAll(async () => {
    if (app) {
      await app.stop();
      app.cleanup();
    }
    await display?.stop();
  });

  /** Pixels of cells [c0, c1) of a row matching pred (a pixel of margin inside each side). */
  function count(row: number, c0: number, c1: number, pred: (p: Rgb) => boolean): number {
    const { x0, y0, cellW, cellH } = grid;
    let n = 0;
    for (let y = y0 + row * cellH; y < y0 + (row + 1) * cellH; y++) {
      for (let x = Math.ceil(x0 + c0 * cellW); x < Math.floor(x0 + c1 * cellW); x++) if (pred(shot.at(x, y))) n++;
    }
    return n;
  }

  it('measures a sane grid from the red row', () => {
    expect(grid.cellW).toBeGreaterThan(5);
    expect(grid.cellW).toBeLessThan(20);
    expect(grid.cellH).toBeGreaterThan(10);
    expect(grid.cellH).toBeLessThan(30);
  });

  it('draws each CJK character across its two cells, and the ASCII after them on their own columns', () => {
    for (let k = 0; k < 7; k++) {
      expect(count(1, 2 * k, 2 * k + 1, ink), `left cell of wide char ${k}`).toBeGreaterThan(3);
      expect(count(1, 2 * k + 1, 2 * k + 2, ink), `right cell of wide char ${k}`).toBeGreaterThan(3);
    }
    expect(count(1, 14, 15, ink), "'|' at column 14").toBeGreaterThan(3);
    expect(count(1, 15, 16, ink), "'X' at column 15").toBeGreaterThan(5);
    expect(count(1, 16, 40, ink), 'nothing after column 16').toBe(0);
  });

  it('draws colour emoji inside their two cells, scaled to fit', () => {
    for (let k = 0; k < 3; k++) expect(count(2, 2 * k, 2 * k + 2, colourful), `emoji ${k}`).toBeGreaterThan(20);
    // No emoji colour bleeds into the text after them or into the rows above and below.
    expect(count(2, 6, 40, colourful)).toBe(0);
    expect(count(1, 0, 6, colourful)).toBe(0);
    expect(count(3, 0, 6, (p) => colourful(p) && !red(p))).toBe(0);
    expect(count(2, 7, 9, ink), "' ok' after the emoji").toBeGreaterThan(5);
  });

  it('draws styled runs in their colours and columns, with combining marks on their base', () => {
    expect(count(3, 0, 8, red), 'bold red').toBeGreaterThan(20);
    expect(count(3, 8, 40, red)).toBe(0);
    expect(count(3, 9, 21, green), 'italic green').toBeGreaterThan(20);
    expect(count(3, 0, 9, green)).toBe(0);
    expect(count(3, 22, 27, ink), 'underlined').toBeGreaterThan(20);
    // e + U+0301 and a + U+0308 are one cell each: more ink than the bare letters would have.
    expect(count(3, 28, 29, ink), 'é').toBeGreaterThan(5);
    expect(count(3, 29, 30, ink), 'ä').toBeGreaterThan(5);
    expect(count(3, 30, 40, ink)).toBe(0);
  });

  it('draws glyphs out to the right edge of the grid, where the window is far from its origin', () => {
    // The painter writes glyphs into the window's image itself: a wrong offset or clip cuts
    // them off somewhere left of the edge.
    const cols = Math.floor((areaWidth - grid.x0) / grid.cellW);
    expect(cols).toBeGreaterThan(40);
    for (let c = cols - 12; c < cols - 1; c++) expect(count(5, c, c + 1, ink), `'W' at column ${c}`).toBeGreaterThan(5);
  });

  it('fills the background of wide characters exactly over their cells', () => {
    const blue = (p: Rgb): boolean => p.b > p.r + 60 && p.b > 120;
    expect(count(4, 0, 4, blue)).toBe(0);
    // Hangul glyphs cover part of the blue: most of the six cells stays blue.
    const cells = 6 * grid.cellW * grid.cellH;
    expect(count(4, 4, 10, blue) / cells).toBeGreaterThan(0.5);
    expect(count(4, 10, 40, blue)).toBe(0);
    expect(count(4, 10, 12, colourful), 'emoji after the blue').toBeGreaterThan(20);
    expect(count(4, 12, 13, ink), "'A' at column 12").toBeGreaterThan(5);
  });
});
