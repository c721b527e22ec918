// A key's echo repaints only the band of rows that changed (TerminalView.repaintBand, painted by
// the native painter inside the paint event, the old cursor cell included), not the whole window.
// What the window shows after typing and editing a line must be, pixel for pixel, what a full
// repaint of the same screen shows.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, readPixels, type Rgb, useDesktop } from './harness';

/** bash's default prompt ends in `$`, or `#` for root. */
const PROMPT = /[$#]$/m;
/** The sidebar's width in the window (the page with the terminal is right of it). */
const SIDEBAR_PX = 240;

/** Waits until the session's text passes `ok`; on a timeout, says what it showed. Typing through
 *  X into a loaded machine (the whole suite on 2 cores) can take a while: 30 s. */
async function shows(read: () => Promise<string>, ok: (screen: string) => boolean, what: string): Promise<void> {
  await waitFor(
    async () => {
      const screen = await read();
      if (!ok(screen)) throw new Error(`the screen: ${JSON.stringify(screen)}`);
      return true;
    },
    { what, timeout: 30_000 },
  );
}

describe.skipIf(e2eSkipReason)('what the terminal paints', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', shots: 'terminal-paint-end', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('shows typed and edited text exactly as a full repaint of the same screen does', async () => {
    const a = (app = await AppUnderTest.launch(display));
    const win = await a.waitForWindow();
    const { id, read } = await a.focusedShell(PROMPT);
    display.xdotool('windowfocus', '--sync', win);
    const geo = a.windowGeometry(win);
    const page = (name: string): Rgb[] => readPixels(a.screenshot(name), geo.x + SIDEBAR_PX + 1, geo.y, geo.width - SIDEBAR_PX - 1, geo.height);
    /** The page once two pictures in a row are the same: every paint has reached the screen. */
    const settled = (name: string): Promise<Rgb[]> => {
      let last = '';
      return waitFor(
        () => {
          const px = page(name);
          const key = JSON.stringify(px);
          const same = key === last;
          last = key;
          return same ? px : null;
        },
        { what: `${name}: the window to stop changing` },
      );
    };

    // A steady cursor (DECSCUSR 2): a blink would differ between the two pictures. Wide
    // characters and colour above the line typed, as UTF-8 in octal: xdotool types CJK by remapping
    // a key code, which drops characters on a loaded machine.
    display.xdotool('type', '--delay', '20', "clear; printf '\\033[2 q\\033[1;35m\\346\\227\\245\\346\\234\\254\\350\\252\\236\\033[0m wide\\n'");
    display.xdotool('key', 'Return');
    await shows(read, (screen) => screen.startsWith('日本語 wide'), 'the screen cleared and the wide text printed');
    // Typing, moving back into the line, inserting, deleting: each echo repaints its row.
    display.xdotool('type', '--delay', '30', 'echo abcdef');
    display.xdotool('key', '--delay', '30', 'Left', 'Left', 'Left');
    display.xdotool('type', '--delay', '30', 'XYZ');
    display.xdotool('key', '--delay', '30', 'BackSpace', 'End');
    display.xdotool('type', '--delay', '30', ' end');
    await shows(read, (screen) => screen.includes('echo abcXYdef end'), 'the edited line');
    const typed = await settled('terminal-paint-typed');

    // Another session in front, then this one again: its page is shown anew and painted in full.
    const other = (await a.cli(['sessions', 'spawn', '--cwd', a.home])).stdout.trim();
    await a.cli(['sessions', 'focus', other]);
    // (Its cursor blinks: it is waited for as a different picture, not a still one.)
    const otherShown = JSON.stringify(
      await waitFor(
        () => {
          const px = page('terminal-paint-other');
          return JSON.stringify(px) !== JSON.stringify(typed) ? px : null;
        },
        { what: 'the other session shown' },
      ),
    );
    await a.cli(['sessions', 'focus', id]);
    display.xdotool('windowfocus', '--sync', win);
    const full = await waitFor(
      async () => {
        const px = await settled('terminal-paint-full');
        return JSON.stringify(px) !== otherShown ? px : null;
      },
      { what: 'the first session shown again' },
    );
    const differing = full.filter((p, i) => p.r !== typed[i]!.r || p.g !== typed[i]!.g || p.b !== typed[i]!.b).length;
    expect(differing, 'pixels that differ between the echoes as painted and a full repaint (see terminal-paint-typed.png and terminal-paint-full.png)').toBe(0);
  });
});
