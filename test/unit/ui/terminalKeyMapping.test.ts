// Qt key events → KeyInput → bytes, for each key class, on Linux and macOS modifier layouts.
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../../src/app/services/settings';
import { keyInputFromQt, QtMod } from '../../../src/app/ui/terminal/keyMapping';
import { defaultInputModes, encodeKey } from '../../../src/terminal/common/inputEncoding';

const linux = { macOS: false, optionAsMeta: true };
const mac = { macOS: true, optionAsMeta: true };
const macCompose = { macOS: true, optionAsMeta: false };
const bytes = (key: number, mods: number, text: string, opts = linux): string | null => {
  const k = keyInputFromQt(key, mods, text, opts);
  return k ? encodeKey(k, defaultInputModes) : null;
};

describe('keyInputFromQt', () => {
  it('maps printable keys with their text', () => {
    expect(keyInputFromQt(0x41, 0, 'a', linux)).toEqual({ key: 'a', text: 'a', shift: false, ctrl: false, alt: false, meta: false });
    expect(bytes(0x41, QtMod.shift, 'A')).toBe('A');
    expect(bytes(0x21, QtMod.shift, '!')).toBe('!');
    expect(bytes(0x20, 0, ' ')).toBe(' ');
  });

  it('maps Ctrl and Alt combinations (Ctrl text from Qt is ignored)', () => {
    expect(bytes(0x43, QtMod.control, '\x03')).toBe('\x03');
    expect(bytes(0x42, QtMod.alt, 'b')).toBe('\x1bb');
    expect(bytes(0x5b, QtMod.control, '\x1b')).toBe('\x1b');
  });

  it('maps named keys, Backtab and function keys', () => {
    expect(bytes(0x01000004, 0, '\r')).toBe('\r');
    expect(bytes(0x01000004, QtMod.shift, '\r')).toBe('\x1b\r');
    expect(bytes(0x01000002, QtMod.shift, '')).toBe('\x1b[Z');
    expect(bytes(0x01000013, 0, '')).toBe('\x1b[A');
    expect(bytes(0x01000034, 0, '')).toBe('\x1b[15~'); // F5
    expect(bytes(0x0100003b, QtMod.control, '')).toBe('\x1b[24;5~'); // Ctrl+F12
    expect(bytes(0x01000000, 0, '\x1b')).toBe('\x1b');
  });

  it('maps keypad keys by the keypad modifier', () => {
    expect(keyInputFromQt(0x35, QtMod.keypad, '5', linux)?.key).toBe('Numpad5');
    expect(keyInputFromQt(0x01000005, QtMod.keypad, '\r', linux)?.key).toBe('NumpadEnter');
    // macOS flags arrow keys as keypad keys; they stay arrows.
    expect(keyInputFromQt(0x01000012, QtMod.keypad, '', mac)?.key).toBe('ArrowLeft');
  });

  it('ignores bare modifier keys', () => {
    expect(keyInputFromQt(0x01000020, QtMod.shift, '', linux)).toBeNull();
    expect(keyInputFromQt(0x01000023, QtMod.alt, '', linux)).toBeNull();
  });

  it('on macOS, Qt Control is Cmd and Qt Meta is the Control key', () => {
    expect(keyInputFromQt(0x43, QtMod.control, 'c', mac)).toMatchObject({ key: 'c', meta: true, ctrl: false });
    expect(bytes(0x43, QtMod.meta, '\x03', mac)).toBe('\x03');
    expect(bytes(0x43, QtMod.control, 'c', mac)).toBeNull(); // Cmd+C is the view's copy shortcut
  });

  it('Option composes characters unless it is configured as Meta', () => {
    expect(bytes(0x45, QtMod.alt, '´', macCompose)).toBe('´');
    // Non-US layouts type @ [ ] | with Option: with the setting off they arrive as typed.
    expect(bytes(0x4c, QtMod.alt, '@', macCompose)).toBe('@');
    expect(bytes(0x35, QtMod.alt, '[', macCompose)).toBe('[');
  });

  it('Option as Meta sends ESC and the key’s own character, not what Option composed', () => {
    expect(bytes(0x42, QtMod.alt, '∫', mac)).toBe('\x1bb');
    expect(bytes(0x46, QtMod.alt, 'ƒ', mac)).toBe('\x1bf');
    expect(bytes(0x42, QtMod.alt | QtMod.shift, 'ı', mac)).toBe('\x1bB');
    expect(bytes(0x2e, QtMod.alt, '≥', mac)).toBe('\x1b.');
    // Option+E starts a dead key (no text at all): as Meta it is still ESC e.
    expect(bytes(0x45, QtMod.alt, '', mac)).toBe('\x1be');
  });

  it('Option as Meta is off unless the settings turn it on', () => {
    expect(SettingsSchema.parse({}).terminal.optionAsMeta).toBe(false);
    expect(SettingsSchema.parse({ terminal: {} }).terminal.optionAsMeta).toBe(false);
    expect(SettingsSchema.parse({ terminal: { optionAsMeta: true } }).terminal.optionAsMeta).toBe(true);
  });
});
