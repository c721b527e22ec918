// Each setting reaches what it changes: a real headless Host in a temporary HOME, settings.json
// edited by hand as a user would, and the effect read from the session or the policy it drives.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import { nullLogger } from '../../../src/app/services/log';
import { defaultSettings } from '../../../src/app/services/settings';
import { waitFor } from '../../helpers/waitFor';

describe('settings reach the sessions and policies they change', () => {
  let home: string;
  let host: Host;
  let settingsFile: string;

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'termio-settings-'));
    settingsFile = join(home, '.termio', 'config', 'settings.json');
    mkdirSync(join(home, '.termio', 'config'), { recursive: true });
    const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/sh' };
    const r = await Host.start({ env, logger: nullLogger, path: '', notificationSink: { send: async () => undefined } });
    if (!r.ok) throw new Error(r.message);
    host = r.host;
  });
  afterEach(async () => {
    await host.dispose();
    rmSync(home, { recursive: true, force: true });
  });

  async function spawnShell() {
    const r = await host.registry.spawn({ cwd: home });
    if (!r.ok) throw new Error(r.message);
    return r.record.session;
  }

  it('terminal.cursorStyle and cursorBlink: a new session starts with them, a live one follows an edit', async () => {
    const defaults = defaultSettings().terminal;
    const live = await spawnShell();
    await waitFor(() => live.renderModel.update().frame.cursor.shape === defaults.cursorStyle, { what: 'the default cursor' });
    expect(live.renderModel.update().frame.cursor.blinking).toBe(defaults.cursorBlink);

    writeFileSync(settingsFile, '{ "terminal": { "cursorStyle": "bar", "cursorBlink": false } }\n');
    await waitFor(() => live.renderModel.update().frame.cursor.shape === 'bar', { what: 'the live session to take the bar cursor' });
    expect(live.renderModel.update().frame.cursor.blinking).toBe(false);

    const fresh = await spawnShell();
    expect(fresh.renderModel.update().frame.cursor).toMatchObject({ shape: 'bar', blinking: false });
  });

  it('a program that sets its own cursor (DECSCUSR) still wins over the setting', async () => {
    writeFileSync(settingsFile, '{ "terminal": { "cursorStyle": "underline" } }\n');
    await waitFor(() => host.settings.settings.terminal.cursorStyle === 'underline', { what: 'the settings to load' });
    const s = await spawnShell();
    expect(s.renderModel.update().frame.cursor.shape).toBe('underline');
    // Typed before the shell reads its line editor's settings, the escape can be eaten: wait for the prompt.
    await waitFor(() => s.screenLines().some((l) => /[$#]\s*$/.test(l)), { what: "the shell's prompt" });
    s.write("printf '\\033[6 q'; echo set\n");
    await waitFor(() => s.renderModel.update().frame.cursor.shape === 'bar', { what: 'the application cursor' });
  });

  it('sessions.stallSeconds: the status tracker judges stalls by it, and follows an edit', async () => {
    expect(host.tracker.stallTimeMs).toBe(defaultSettings().sessions.stallSeconds * 1000);
    writeFileSync(settingsFile, '{ "sessions": { "stallSeconds": 30 } }\n');
    await waitFor(() => host.tracker.stallTimeMs === 30_000, { what: 'the stall time to apply' });
  });

  it('notifications.attention off: an agent needing you is not notified', async () => {
    const ctx = { userLooking: false, agentName: 'Claude Code', folderLabel: '~' };
    expect(host.notifications.stateChanged('a', 'working', 'attention', 1_000, ctx)).not.toBeNull();
    writeFileSync(settingsFile, '{ "notifications": { "attention": false } }\n');
    await waitFor(() => host.notifications.stateChanged('b', 'working', 'attention', 100_000, ctx) === null, { what: 'the attention setting to apply' });
  });
});
