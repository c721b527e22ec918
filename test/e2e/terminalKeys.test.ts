// Keys typed into the real app's terminal under Xvfb reach the program: the terminal view takes
// its keys straight from Qt (NativeGrid.watchKeys), so Tab and Shift+Tab, the keys Qt would use to
// move the focus to the next widget, go to the program like any other, and the keys after them
// still land in the terminal.
import { describe, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, useDesktop } from './harness';

/** bash's default prompt ends in `$`, or `#` for root. */
const PROMPT = /[$#]$/m;

describe.skipIf(e2eSkipReason)('keys typed into the terminal', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('sends Tab and Shift+Tab to the program, and the focus stays in the terminal', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    const { read } = await app.focusedShell(PROMPT);
    display.xdotool('windowfocus', '--sync', win);

    // cat -A shows a tab as ^I and Shift+Tab's escape sequence (CSI Z) as ^[[Z, a line end as $.
    display.xdotool('type', '--delay', '20', 'cat -A');
    display.xdotool('key', 'Return');
    await waitFor(async () => (await read()).includes('cat -A\n'), { what: 'cat to start' });
    display.xdotool('type', '--delay', '20', 'a');
    display.xdotool('key', 'Tab');
    display.xdotool('type', '--delay', '20', 'b');
    display.xdotool('key', 'shift+Tab');
    display.xdotool('type', '--delay', '20', 'c');
    display.xdotool('key', 'Return');
    await waitFor(async () => (await read()).includes('a^Ib^[[Zc$'), { what: 'the line with its tab and back-tab, as cat -A shows it' });
    display.xdotool('key', 'ctrl+c');
    await waitFor(async () => PROMPT.test(await read()), { what: 'the prompt after cat' });
  });
});
