// Settings → Phone in the real app under Xvfb, with the real session host: it shows the pairing
// link as a QR code, and its Revoke button (Alt+R) mints a new link.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/companionHost';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, readPixels, useDesktop } from './harness';

const mod = process.platform === 'darwin' ? 'super' : 'ctrl';

describe.skipIf(e2eSkipReason)('Settings → Phone', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('shows the pairing link as a QR code and revokes it', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    // A session keeps the host up (it leaves when it holds nothing); then the companion goes on.
    expect((await app.cli(['host', 'spawn', '--cwd', home])).code).toBe(0);
    const port = await freePort();
    const on = await app.cli(['companion', 'enable', '--port', String(port)]);
    expect(on.code, on.stderr).toBe(0);
    const tokenFile = join(home, '.termio', 'companion-token');
    const first = readFileSync(tokenFile, 'utf8').trim();

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', `${mod}+comma`);
    const settings = await app.waitForWindow('Termio Settings');
    display.xdotool('windowfocus', '--sync', settings);
    // Phone is the last tab.
    for (let i = 0; i < 6; i++) display.xdotool('key', 'ctrl+Tab');
    // The QR code is black modules on white: a white square appears in the window.
    await waitFor(() => {
      const geo = app!.windowGeometry(settings);
      const px = readPixels(app!.screenshot('companion-settings-phone'), geo.x, geo.y, geo.width, geo.height);
      return fractionNear(px, { r: 255, g: 255, b: 255 }, 2) > 0.03 && fractionNear(px, { r: 0, g: 0, b: 0 }, 2) > 0.03;
    }, { what: 'the QR code in Settings → Phone' });

    // Revoke by its mnemonic (Alt+R), as a keyboard user would.
    display.xdotool('key', 'alt+r');
    await waitFor(() => readFileSync(tokenFile, 'utf8').trim() !== first, { what: 'Revoke to mint a new token' });
    const url = await app.cli(['companion', 'url']);
    expect(url.stdout.trim()).toBe(`http://127.0.0.1:${port}/#t=${readFileSync(tokenFile, 'utf8').trim()}`);
    app.screenshot('companion-settings-phone-revoked');
  });
});
