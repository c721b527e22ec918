// Scrolled back while a program streams, in the real app under Xvfb: the view stays on the lines
// the user scrolled to (read back through `sessions read --viewport`, the rows the tab paints),
// a pill in its bottom-right corner counts the lines written below since, and a click on the pill
// goes back to the bottom.
import { describe, expect, it } from 'vitest';
import { darkTheme } from '../../src/terminal/common';
import { blend } from '../../src/app/ui/terminal/cellColors';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, readPixels, useDesktop } from './harness';

const PROMPT = /[$#]$/m;

/** The last "line N" on these rows. */
function lastLine(rows: string[]): number {
  return Math.max(-1, ...rows.map((r) => /^line (\d+)$/.exec(r)?.[1]).flatMap((n) => (n ? [Number(n)] : [])));
}

/** The box of the pixels in `png`'s region that have the pill's fill, or null. */
function pillBox(png: string, region: { x: number; y: number; width: number; height: number }): { x: number; y: number } | null {
  const fill = blend(darkTheme.foreground, darkTheme.background, 0.2);
  const [r, g, b] = [(fill >> 16) & 255, (fill >> 8) & 255, fill & 255];
  const px = readPixels(png, region.x, region.y, region.width, region.height);
  let [minX, minY, maxX, maxY, n] = [Infinity, Infinity, -1, -1, 0];
  px.forEach((p, i) => {
    if (Math.abs(p.r - r) > 2 || Math.abs(p.g - g) > 2 || Math.abs(p.b - b) > 2) return;
    const [x, y] = [i % region.width, Math.floor(i / region.width)];
    [minX, minY, maxX, maxY, n] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y), n + 1];
  });
  // A pill, not a stray pixel: a solid patch of its fill.
  if (n < 300) return null;
  return { x: region.x + Math.round((minX + maxX) / 2), y: region.y + Math.round((minY + maxY) / 2) };
}

describe.skipIf(e2eSkipReason)('scrolled back while output streams', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ shots: 'scroll-back', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('keeps the viewport on the same lines, counts the new ones in a pill, and the pill goes back to the bottom', async () => {
    const a = await AppUnderTest.launch(display, { settings: { terminal: { theme: 'dark' } } });
    app = a;
    const win = await a.waitForWindow();
    const { id } = await a.focusedShell(PROMPT);
    const read = async (viewport: boolean): Promise<string[]> =>
      (JSON.parse((await a.cli(['sessions', 'read', id, '--json', ...(viewport ? ['--viewport'] : [])])).stdout) as { lines: string[] }).lines;
    // A steady stream, as an agent's long answer: about fifty lines a second.
    await a.cli(['sessions', 'send', id, 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo "line $i"; sleep 0.02; done', '--enter']);
    await waitFor(async () => lastLine(await read(false)) >= 200, { what: 'two hundred lines' });

    // Three wheel notches up in the terminal: the session's viewport leaves the bottom.
    const geom = a.windowGeometry(win);
    display.xdotool(
      'mousemove',
      '--window',
      win,
      String(Math.round(geom.width * 0.6)),
      String(Math.round(geom.height / 2)),
      'click',
      '4',
      'click',
      '4',
      'click',
      '4',
    );
    const first = await waitFor(
      async () => {
        const [view, screen] = [await read(true), await read(false)];
        return lastLine(view) >= 0 && lastLine(view) < lastLine(screen) ? view[0] : null;
      },
      { what: 'the viewport scrolled back' },
    );
    const at = lastLine(await read(false));
    await waitFor(async () => lastLine(await read(false)) >= at + 100, { what: 'a hundred more lines below' });
    // Still the same first line: nothing moved under the reader.
    expect((await read(true))[0]).toBe(first);

    // The pill in the view's bottom-right quarter, then a click on it: back at the bottom, streaming again.
    const quarter = {
      x: geom.x + Math.round(geom.width / 2),
      y: geom.y + Math.round(geom.height / 2),
      width: Math.round(geom.width / 2),
      height: Math.round(geom.height / 2),
    };
    const pill = await waitFor(() => pillBox(a.screenshot('scroll-back-pill'), quarter), { what: 'the new-lines pill' });
    display.xdotool('mousemove', String(pill.x), String(pill.y), 'click', '1');
    // At the bottom the view shows at least the lines the screen had a moment before (it streams on).
    await waitFor(
      async () => {
        const screen = await read(false);
        return lastLine(await read(true)) >= lastLine(screen);
      },
      { what: 'the view back at the bottom' },
    );
    await waitFor(() => pillBox(a.screenshot('scroll-back-bottom'), quarter) === null, { what: 'the pill to go' });
    await a.cli(['sessions', 'send', id, '\x03']);
  }, 120_000);
});
