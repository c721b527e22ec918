// Global keys, without a display: which backend serves them on each platform and session (the
// helper grabs on X11, Carbon on macOS, none on Wayland, each refusal with its reason), and how a
// key sequence in Qt's notation becomes what each helper grabs, or a message saying what is wrong.
import { describe, expect, it } from 'vitest';
import { chooseGlobalKeysBackend, parseGlobalKey } from '../../../src/app/platform/globalKeys';

const helper = '/opt/termio/native/termio-hotkeys/build/termio-hotkeys';

describe('chooseGlobalKeysBackend', () => {
  it('grabs through the helper on X11 and macOS', () => {
    expect(chooseGlobalKeysBackend({ platform: 'linux', env: { DISPLAY: ':0', XDG_SESSION_TYPE: 'x11' }, helper })).toEqual({ kind: 'x11', helper });
    expect(chooseGlobalKeysBackend({ platform: 'darwin', env: {}, helper })).toEqual({ kind: 'carbon', helper });
  });

  it('says why not: Wayland (even with XWayland), no display, no helper built, another platform', () => {
    const why = (o: Parameters<typeof chooseGlobalKeysBackend>[0]) => {
      const b = chooseGlobalKeysBackend(o);
      return b.kind === 'unavailable' ? b.why : `chose ${b.kind}`;
    };
    expect(why({ platform: 'linux', env: { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' }, helper })).toMatch(
      /^global keys are unavailable on Wayland.*termio sessions next --focus/,
    );
    expect(why({ platform: 'linux', env: { DISPLAY: ':0', XDG_SESSION_TYPE: 'wayland' }, helper })).toMatch(/Wayland/);
    expect(why({ platform: 'linux', env: {}, helper })).toBe('global keys need an X display, and DISPLAY is not set');
    expect(why({ platform: 'linux', env: { DISPLAY: ':0' }, helper: null })).toMatch(/helper was not built \(set-up needs a C compiler and libx11-dev/);
    expect(why({ platform: 'darwin', env: {}, helper: null })).toMatch(/Xcode's command line tools/);
    expect(why({ platform: 'win32', env: {}, helper })).toBe('global keys are not supported on win32');
  });
});

describe('parseGlobalKey', () => {
  it('turns Qt notation into X11 masks and keysyms, and Carbon masks and key codes', () => {
    // X11: Shift 1, Control 4, Mod1 8, Mod4 64. Carbon: cmd 256, shift 512, option 2048, control 4096.
    expect(parseGlobalKey('Ctrl+Alt+Space')).toEqual({ ok: true, x11: { mods: 12, key: 'space' }, carbon: { mods: 2304, key: '49' } });
    expect(parseGlobalKey('Ctrl+Alt+Shift+Space')).toMatchObject({ x11: { mods: 13, key: 'space' } });
    expect(parseGlobalKey('Meta+Ctrl+U')).toEqual({ ok: true, x11: { mods: 68, key: 'u' }, carbon: { mods: 4352, key: '32' } });
    expect(parseGlobalKey('control+alt+f5')).toEqual({ ok: true, x11: { mods: 12, key: 'F5' }, carbon: { mods: 2304, key: '96' } });
    expect(parseGlobalKey('Alt+7')).toMatchObject({ x11: { mods: 8, key: '7' }, carbon: { key: '26' } });
  });

  it('refuses a key without Ctrl, Alt or Meta, an unknown modifier and a key it cannot grab, naming it', () => {
    expect(parseGlobalKey('Shift+A')).toEqual({
      ok: false,
      message: "'Shift+A' needs Ctrl, Alt or Meta: a global key without one would take that key from typing everywhere",
    });
    expect(parseGlobalKey('Space')).toMatchObject({ ok: false, message: expect.stringContaining('needs Ctrl, Alt or Meta') });
    expect(parseGlobalKey('Hyper+Space')).toEqual({ ok: false, message: "'Hyper+Space': 'Hyper' is not a modifier (Ctrl, Alt, Shift or Meta)" });
    expect(parseGlobalKey('Ctrl+Alt+Ä')).toMatchObject({ ok: false, message: expect.stringContaining("'Ä' is not a key a global shortcut can use") });
    expect(parseGlobalKey('Ctrl+Alt+')).toMatchObject({ ok: false, message: expect.stringContaining("'' is not a key") });
  });
});
