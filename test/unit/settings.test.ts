// Settings: lenient reading that keeps every valid field, precise errors, surgical writes, live reload.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings, editSettingsText, parseSettings, SettingsEditRefused, SettingsStore } from '../../src/app/services/settings';
import { waitFor } from '../helpers/waitFor';

describe('settings', () => {
  it('defaults everything for an empty or missing file', () => {
    expect(parseSettings('')).toEqual({ settings: defaultSettings(), errors: [] });
    expect(defaultSettings().terminal.scrollback).toBe(10_000);
  });

  it('keeps every other setting when one field has the wrong type, and names it', () => {
    const text = `{
      // my settings
      "terminal": { "fontSize": "big", "scrollback": 5000, "theme": "light" },
      "notifications": { "sound": false, "doneMinSeconds": -3 },
    }`;
    const r = parseSettings(text, '~/.termio/config/settings.json');
    expect(r.settings.terminal).toMatchObject({ fontSize: 13, scrollback: 5000, theme: 'light' });
    expect(r.settings.notifications).toMatchObject({ sound: false, doneMinSeconds: 10, attention: true });
    expect([...r.errors].sort()).toEqual([
      '~/.termio/config/settings.json: notifications.doneMinSeconds: Too small: expected number to be >=0, got -3; using the default',
      '~/.termio/config/settings.json: terminal.fontSize: expected number, got "big"; using the default',
    ]);
  });

  it('reports a non-object file and broken JSON without throwing', () => {
    expect(parseSettings('[1,2]').errors).toEqual(['settings.json: expected an object at the top, got an array; using defaults']);
    const broken = parseSettings('{ "terminal": { "fontSize": 15 ');
    expect(broken.settings.terminal.fontSize).toBe(15);
    expect(broken.errors[0]).toMatch(/^settings\.json: line 1: /);
  });

  it('edits one key and leaves comments and layout alone', () => {
    const text = '{\n  // keep me\n  "terminal": {\n    "fontSize": 15\n  }\n}\n';
    const out = editSettingsText(text, ['terminal', 'theme'], 'dark');
    expect(out).toContain('// keep me');
    expect(out).toContain('"fontSize": 15');
    expect(parseSettings(out).settings.terminal.theme).toBe('dark');
    expect(editSettingsText('', ['welcomeShown'], true)).toBe('{\n  "welcomeShown": true\n}\n');
  });

  describe('store', () => {
    let dir: string;
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('writes atomically and applies hand edits live', async () => {
      dir = mkdtempSync(join(tmpdir(), 'settings-'));
      const file = join(dir, 'config', 'settings.json');
      const store = new SettingsStore(file);
      store.set(['notifications', 'sound'], false);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notifications: { sound: false } });
      expect(store.settings.notifications.sound).toBe(false);
      store.watch();
      const seen: number[] = [];
      store.onChange((s) => seen.push(s.settings.terminal.fontSize));
      writeFileSync(file, '{ "terminal": { "fontSize": 18 } }');
      await waitFor(() => seen.includes(18), { what: 'the hand edit to be applied' });
      store.dispose();
    });

    it('refuses a key the schema has no place for and a value it does not take, writing nothing', () => {
      dir = mkdtempSync(join(tmpdir(), 'settings-'));
      const file = join(dir, 'settings.json');
      const text = '{\n  // mine\n  "terminal": { "fontSize": 14 }\n}\n';
      writeFileSync(file, text);
      const store = new SettingsStore(file);
      const refusal = (path: string[], value: unknown) => {
        try {
          store.set(path, value);
          return null;
        } catch (e) {
          expect(e).toBeInstanceOf(SettingsEditRefused);
          return (e as Error).message.replace(`${file}: `, '');
        }
      };
      expect(refusal(['colours'], 1)).toMatch(/^there is no setting 'colours' \(known: notifications, terminal, .*\) \(nothing was changed\)$/);
      expect(refusal(['terminal', 'nope', 'x'], 1)).toMatch(/^there is no setting 'terminal\.nope' \(known: fontFamily, fontSize/);
      expect(refusal(['agents', 'claude', 'zzz'], true)).toMatch(/^there is no setting 'agents\.claude\.zzz' \(known: enabled, bypass, order\)/);
      expect(refusal(['shortcuts', 'x', 'y'], 1)).toBe("there is no setting 'shortcuts.x.y' (nothing was changed)");
      expect(refusal(['terminal', 'fontSize'], 'big')).toBe('terminal.fontSize: expected number, got "big" (nothing was changed)');
      expect(readFileSync(file, 'utf8')).toBe(text);
      // Keys that records hold (an agent id, a folder with dots in it) are places the schema has.
      expect(refusal(['agents', 'claude', 'bypass'], true)).toBeNull();
      expect(refusal(['picker', 'machines', '/src/app.v2'], '')).toBeNull();
      expect(store.settings.picker.machines).toEqual({ '/src/app.v2': '' });
      store.dispose();
    });
  });
});
