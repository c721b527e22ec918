// Which notification path each runtime gets, and the tray sink tying a click to the session of
// the last notification (Qt's messageClicked does not say which message was clicked).
import { describe, expect, it } from 'vitest';
import { chooseNotificationBackend, inAppBundle, TrayMessageSink } from '../../src/app/services/notificationBackend';
import type { NotificationRequest } from '../../src/app/services/notifier';

const bundleQode = '/Applications/Termio.app/Contents/MacOS/qode';
const checkoutQode = '/Users/me/termio/node_modules/@nodegui/qode/binaries/qode';

describe('chooseNotificationBackend', () => {
  it('uses the tray from Termio.app on macOS', () => {
    expect(chooseNotificationBackend({ platform: 'darwin', execPath: bundleQode })).toBe('tray');
  });

  it('keeps node-notifier for a checkout run on macOS and on Linux', () => {
    expect(chooseNotificationBackend({ platform: 'darwin', execPath: checkoutQode })).toBe('node-notifier');
    expect(chooseNotificationBackend({ platform: 'linux', execPath: '/usr/bin/node' })).toBe('node-notifier');
    // A path that merely mentions a bundle is not running from one.
    expect(chooseNotificationBackend({ platform: 'darwin', execPath: '/Users/me/My.app/bin/qode' })).toBe('node-notifier');
  });

  it('honours TERMIO_NOTIFIER and ignores values it does not know', () => {
    expect(chooseNotificationBackend({ platform: 'linux', execPath: '/usr/bin/node', override: 'tray' })).toBe('tray');
    expect(chooseNotificationBackend({ platform: 'darwin', execPath: bundleQode, override: 'node-notifier' })).toBe('node-notifier');
    expect(chooseNotificationBackend({ platform: 'darwin', execPath: bundleQode, override: 'growl' })).toBe('tray');
  });

  it('recognises a bundle’s main executable', () => {
    expect(inAppBundle(bundleQode)).toBe(true);
    expect(inAppBundle('/Applications/Termio.app/Contents/Resources/app/node_modules/.bin/qode')).toBe(false);
  });
});

describe('TrayMessageSink', () => {
  const req = (sessionId: string | null, title: string): NotificationRequest => ({ sessionId, kind: 'attention', title, message: `${title} body` });

  it('shows each notification through the tray and sends a click to the last one notified', async () => {
    const shown: string[] = [];
    const clicks: (string | null)[] = [];
    const sink = new TrayMessageSink((title, message) => shown.push(`${title}|${message}`));
    sink.clicked(); // nothing notified yet: nothing to focus
    expect(clicks).toEqual([]);
    await sink.send(req('s1', 'Claude needs you'), true, () => clicks.push('s1'));
    await sink.send(req('s2', 'Codex needs you'), false, () => clicks.push('s2'));
    expect(shown).toEqual(['Claude needs you|Claude needs you body', 'Codex needs you|Codex needs you body']);
    expect(sink.lastNotifiedSession).toBe('s2');
    sink.clicked();
    expect(clicks).toEqual(['s2']);
    await sink.send(req(null, '2 more agents need you'), true, () => clicks.push(null));
    sink.clicked();
    expect(clicks).toEqual(['s2', null]);
  });
});
