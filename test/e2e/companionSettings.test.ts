// Settings → Phone in the real app under Xvfb, with the real session host: it shows the pairing
// link as a QR code, and its Revoke button (Alt+R) mints a new link.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, useDesktop } from './harness';

const mod = process.platform === 'darwin' ? 'super' : 'ctrl';

/** The text of the QR code in a window's screenshot (zbarimg, Debian's zbar-tools), or null when none decodes. */
function decodeQr(app: AppUnderTest, win: string): string | null {
  const geo = app.windowGeometry(win);
  const shot = app.screenshot('companion-settings-phone');
  const crop = `${shot}.window.png`;
  const c = spawnSync('convert', [shot, '-crop', `${geo.width}x${geo.height}+${geo.x}+${geo.y}`, '+repage', crop]);
  if (c.status !== 0) throw new Error(`convert could not crop the screenshot: ${c.stderr}`);
  const r = spawnSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', crop], { encoding: 'utf8' });
  if (r.error) throw new Error(`zbarimg (Debian: zbar-tools, installed by npm test) could not run: ${r.error.message}`);
  // zbarimg exits 4 when it finds no code: the window may not have painted it yet.
  return r.status === 0 ? r.stdout.trim() : null;
}

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
    // The QR code, decoded from the window's own pixels, is the pairing link the CLI prints.
    const link = (await app.cli(['companion', 'url'])).stdout.trim();
    expect(link).toBe(`http://127.0.0.1:${port}/#t=${first}`);
    await waitFor(() => decodeQr(app!, settings) === link, { what: `a QR code of ${link} in Settings → Phone` });

    // Revoke by its mnemonic (Alt+R), as a keyboard user would.
    display.xdotool('key', 'alt+r');
    await waitFor(() => readFileSync(tokenFile, 'utf8').trim() !== first, { what: 'Revoke to mint a new token' });
    const url = (await app.cli(['companion', 'url'])).stdout.trim();
    expect(url).toBe(`http://127.0.0.1:${port}/#t=${readFileSync(tokenFile, 'utf8').trim()}`);
    // And the code on screen follows the new link.
    await waitFor(() => decodeQr(app!, settings) === url, { what: `the QR code to show the new link ${url}` });
    app.screenshot('companion-settings-phone-revoked');
  });

  it('lists the phones notified by push, and removes one with its Remove button', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    expect((await app.cli(['host', 'spawn', '--cwd', home])).code).toBe(0);
    const port = await freePort();
    expect((await app.cli(['companion', 'enable', '--port', String(port)])).code).toBe(0);
    // What a phone's "Notify this phone" registers (its browser's subscription; nothing is pushed here).
    const r = await fetch(`http://127.0.0.1:${port}/api/push/subscriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${readFileSync(join(home, '.termio', 'companion-token'), 'utf8').trim()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        device: 'settings-phone',
        name: 'Android · Chrome',
        subscription: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BNcR', auth: 'tBHI' } },
      }),
    });
    expect(r.status).toBe(200);
    const listed = JSON.parse((await app.cli(['companion', 'devices', '--json'])).stdout) as { devices: Array<{ id: string; service: string }> };
    expect(listed.devices).toMatchObject([{ id: 'settings-phone', service: 'fcm.googleapis.com' }]);

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', `${mod}+comma`);
    const settings = await app.waitForWindow('Termio Settings');
    display.xdotool('windowfocus', '--sync', settings);
    for (let i = 0; i < 6; i++) display.xdotool('key', 'ctrl+Tab');
    await waitFor(() => decodeQr(app!, settings) !== null, { what: 'Settings → Phone to paint' });
    app.screenshot('companion-settings-phone-devices');
    // Its Remove button, by its mnemonic (Alt+M): the device is gone from the host.
    await waitFor(
      async () => {
        display.xdotool('key', 'alt+m');
        const after = JSON.parse((await app!.cli(['companion', 'devices', '--json'])).stdout) as { devices: unknown[] };
        return after.devices.length === 0;
      },
      { what: 'Remove in Settings → Phone to remove the device' },
    );
  });
});
