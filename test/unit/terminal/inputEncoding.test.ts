// Key, mouse, paste and focus encoding for every key class, in normal and application modes,
// under the kitty keyboard protocol and modifyOtherKeys.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHIFT_ENTER,
  defaultInputModes,
  encodeFocus,
  encodeKey,
  encodeMouse,
  encodePaste,
  type InputModes,
  type KeyInput,
} from '../../../src/terminal/common/inputEncoding';

const normal = defaultInputModes;
const app: InputModes = { ...defaultInputModes, applicationCursorKeys: true, applicationKeypad: true };
const kitty1: InputModes = { ...defaultInputModes, kittyFlags: 1 };
const kittyAll: InputModes = { ...defaultInputModes, kittyFlags: 1 | 8 };
const mok1: InputModes = { ...defaultInputModes, modifyOtherKeys: 1 };
const mok2: InputModes = { ...defaultInputModes, modifyOtherKeys: 2 };

const key = (k: string, mods: Partial<KeyInput> = {}): KeyInput => ({ key: k, ...mods });
const enc = (k: KeyInput, m: InputModes = normal): string | null => encodeKey(k, m);

describe('printable text', () => {
  it('sends the text, with ESC before it for Alt', () => {
    expect(enc(key('a'))).toBe('a');
    expect(enc(key('a', { shift: true, text: 'A' }))).toBe('A');
    expect(enc(key('é', { text: 'é' }))).toBe('é');
    expect(enc(key('a', { alt: true }))).toBe('\x1ba');
    expect(enc(key('Space'))).toBe(' ');
    // A dead-key/IME composition arrives as text on an unnamed key.
    expect(enc(key('Unidentified', { text: '日本' }))).toBe('日本');
  });

  it('sends nothing for a bare modifier or a Cmd combo (left to the view as a shortcut)', () => {
    expect(enc(key('Shift', { shift: true }))).toBeNull();
    expect(enc(key('c', { meta: true }))).toBeNull();
  });
});

describe('Ctrl combinations', () => {
  it('maps letters and punctuation to C0 bytes', () => {
    expect(enc(key('c', { ctrl: true }))).toBe('\x03');
    expect(enc(key('a', { ctrl: true }))).toBe('\x01');
    expect(enc(key('z', { ctrl: true }))).toBe('\x1a');
    expect(enc(key('Space', { ctrl: true }))).toBe('\x00');
    expect(enc(key('[', { ctrl: true }))).toBe('\x1b');
    expect(enc(key('\\', { ctrl: true }))).toBe('\x1c');
    expect(enc(key(']', { ctrl: true }))).toBe('\x1d');
    expect(enc(key('/', { ctrl: true }))).toBe('\x1f');
    expect(enc(key('2', { ctrl: true }))).toBe('\x00');
    expect(enc(key('6', { ctrl: true }))).toBe('\x1e');
  });

  it('puts ESC before Ctrl+Alt combinations', () => {
    expect(enc(key('x', { ctrl: true, alt: true }))).toBe('\x1b\x18');
  });
});

describe('functional keys', () => {
  it('Enter, Tab, Backspace, Escape', () => {
    expect(enc(key('Enter'))).toBe('\r');
    expect(enc(key('Enter', { alt: true }))).toBe('\x1b\r');
    expect(enc(key('Tab'))).toBe('\t');
    expect(enc(key('Tab', { shift: true }))).toBe('\x1b[Z');
    expect(enc(key('Backspace'))).toBe('\x7f');
    expect(enc(key('Backspace', { ctrl: true }))).toBe('\x08');
    expect(enc(key('Backspace', { alt: true }))).toBe('\x1b\x7f');
    expect(enc(key('Escape'))).toBe('\x1b');
  });

  it('Shift+Enter defaults to ESC CR and is configurable', () => {
    expect(DEFAULT_SHIFT_ENTER).toBe('\x1b\r');
    expect(enc(key('Enter', { shift: true }))).toBe('\x1b\r');
    expect(encodeKey(key('Enter', { shift: true }), normal, { shiftEnter: '\n' })).toBe('\n');
  });

  it('arrows and Home/End follow application cursor mode', () => {
    const names = ['ArrowUp', 'ArrowDown', 'ArrowRight', 'ArrowLeft', 'Home', 'End'];
    expect(names.map((n) => enc(key(n)))).toEqual(['\x1b[A', '\x1b[B', '\x1b[C', '\x1b[D', '\x1b[H', '\x1b[F']);
    expect(names.map((n) => enc(key(n), app))).toEqual(['\x1bOA', '\x1bOB', '\x1bOC', '\x1bOD', '\x1bOH', '\x1bOF']);
    // Modified cursor keys are the same in both modes.
    expect(enc(key('ArrowUp', { shift: true }))).toBe('\x1b[1;2A');
    expect(enc(key('ArrowLeft', { ctrl: true }), app)).toBe('\x1b[1;5D');
    expect(enc(key('End', { alt: true, shift: true }))).toBe('\x1b[1;4F');
  });

  it('PageUp/PageDown/Insert/Delete', () => {
    expect(['PageUp', 'PageDown', 'Insert', 'Delete'].map((n) => enc(key(n)))).toEqual(['\x1b[5~', '\x1b[6~', '\x1b[2~', '\x1b[3~']);
    expect(enc(key('PageUp'), app)).toBe('\x1b[5~');
    expect(enc(key('Delete', { ctrl: true }))).toBe('\x1b[3;5~');
  });

  it('F1–F12', () => {
    const f = Array.from({ length: 12 }, (_, i) => enc(key(`F${i + 1}`)));
    expect(f).toEqual(['\x1bOP', '\x1bOQ', '\x1bOR', '\x1bOS', '\x1b[15~', '\x1b[17~', '\x1b[18~', '\x1b[19~', '\x1b[20~', '\x1b[21~', '\x1b[23~', '\x1b[24~']);
    expect(enc(key('F1', { shift: true }))).toBe('\x1b[1;2P');
    expect(enc(key('F5', { ctrl: true }))).toBe('\x1b[15;5~');
    expect(enc(key('F12'), app)).toBe('\x1b[24~');
  });

  it('keypad keys type their character, or SS3 codes in application keypad mode', () => {
    expect(enc(key('Numpad5'))).toBe('5');
    expect(enc(key('NumpadAdd'))).toBe('+');
    expect(enc(key('NumpadEnter'))).toBe('\r');
    expect(enc(key('Numpad5'), app)).toBe('\x1bOu');
    expect(enc(key('NumpadEnter'), app)).toBe('\x1bOM');
    expect(enc(key('NumpadSubtract'), app)).toBe('\x1bOm');
  });
});

describe('kitty keyboard protocol', () => {
  it('disambiguate: Shift+Enter and friends become CSI u', () => {
    expect(enc(key('Enter', { shift: true }), kitty1)).toBe('\x1b[13;2u');
    expect(enc(key('Enter', { ctrl: true }), kitty1)).toBe('\x1b[13;5u');
    expect(enc(key('Enter'), kitty1)).toBe('\r');
    expect(enc(key('Tab', { shift: true }), kitty1)).toBe('\x1b[9;2u');
    expect(enc(key('Backspace', { alt: true }), kitty1)).toBe('\x1b[127;3u');
    expect(enc(key('Escape'), kitty1)).toBe('\x1b[27u');
    expect(enc(key('c', { ctrl: true }), kitty1)).toBe('\x1b[99;5u');
    expect(enc(key('a', { ctrl: true, shift: true, text: 'A' }), kitty1)).toBe('\x1b[97;6u');
    expect(enc(key('Space', { ctrl: true }), kitty1)).toBe('\x1b[32;5u');
    expect(enc(key('s', { meta: true }), kitty1)).toBe('\x1b[115;9u');
    // Plain and shifted text stays text.
    expect(enc(key('a'), kitty1)).toBe('a');
    expect(enc(key('a', { shift: true, text: 'A' }), kitty1)).toBe('A');
    // Cursor and function keys keep their legacy forms, except F3 (CSI R is a cursor report).
    expect(enc(key('ArrowUp'), kitty1)).toBe('\x1b[A');
    expect(enc(key('ArrowUp', { ctrl: true }), kitty1)).toBe('\x1b[1;5A');
    expect(enc(key('F3', { shift: true }), kitty1)).toBe('\x1b[13;2~');
  });

  it('report all keys: text and Enter as CSI u too', () => {
    expect(enc(key('a'), kittyAll)).toBe('\x1b[97u');
    expect(enc(key('a', { shift: true, text: 'A' }), kittyAll)).toBe('\x1b[97;2u');
    expect(enc(key('Enter'), kittyAll)).toBe('\x1b[13u');
    expect(enc(key('ArrowUp'), { ...kittyAll, applicationCursorKeys: true })).toBe('\x1b[A');
  });
});

describe('modifyOtherKeys', () => {
  it('level 1 reports modified Enter/Tab/Backspace and keeps the well-known combos', () => {
    expect(enc(key('Enter', { shift: true }), mok1)).toBe('\x1b[27;2;13~');
    expect(enc(key('Enter', { ctrl: true }), mok1)).toBe('\x1b[27;5;13~');
    expect(enc(key('Tab', { shift: true }), mok1)).toBe('\x1b[Z');
    expect(enc(key('c', { ctrl: true }), mok1)).toBe('\x03');
    expect(enc(key('a', { alt: true }), mok1)).toBe('\x1ba');
    expect(enc(key(';', { ctrl: true }), mok1)).toBe('\x1b[27;5;59~');
    expect(enc(key('a', { ctrl: true, shift: true, text: 'A' }), mok1)).toBe('\x1b[27;6;65~');
    expect(enc(key('Enter'), mok1)).toBe('\r');
  });

  it('level 2 reports every modified key', () => {
    expect(enc(key('c', { ctrl: true }), mok2)).toBe('\x1b[27;5;99~');
    expect(enc(key('a', { alt: true }), mok2)).toBe('\x1b[27;3;97~');
    expect(enc(key('Tab', { shift: true }), mok2)).toBe('\x1b[27;2;9~');
    expect(enc(key('a'), mok2)).toBe('a');
  });

  it('the kitty protocol wins when both are on', () => {
    expect(enc(key('Enter', { shift: true }), { ...mok1, kittyFlags: 1 })).toBe('\x1b[13;2u');
  });
});

describe('mouse reports', () => {
  const m = (tracking: InputModes['mouseTracking'], encoding: InputModes['mouseEncoding'] = 'default'): InputModes => ({
    ...defaultInputModes,
    mouseTracking: tracking,
    mouseEncoding: encoding,
  });

  it('sends nothing unless the application enabled tracking', () => {
    expect(encodeMouse({ kind: 'press', button: 'left', col: 0, row: 0 }, normal)).toBeNull();
  });

  it('X10 reports presses only, without modifiers', () => {
    expect(encodeMouse({ kind: 'press', button: 'left', col: 2, row: 3, ctrl: true }, m('x10'))).toBe('\x1b[M #$');
    expect(encodeMouse({ kind: 'release', button: 'left', col: 2, row: 3 }, m('x10'))).toBeNull();
    expect(encodeMouse({ kind: 'wheel', button: 'wheelUp', col: 2, row: 3 }, m('x10'))).toBeNull();
  });

  it('normal tracking (1000) reports press, release and wheel, not motion', () => {
    const t = m('vt200');
    expect(encodeMouse({ kind: 'press', button: 'right', col: 0, row: 0 }, t)).toBe('\x1b[M"!!');
    expect(encodeMouse({ kind: 'release', button: 'right', col: 0, row: 0 }, t)).toBe('\x1b[M#!!');
    expect(encodeMouse({ kind: 'wheel', button: 'wheelDown', col: 0, row: 0 }, t)).toBe('\x1b[Ma!!');
    expect(encodeMouse({ kind: 'press', button: 'left', col: 0, row: 0, shift: true, alt: true, ctrl: true }, t)).toBe('\x1b[M<!!');
    expect(encodeMouse({ kind: 'move', button: 'left', col: 1, row: 1 }, t)).toBeNull();
  });

  it('button tracking (1002) adds drags; any-event (1003) adds bare motion', () => {
    expect(encodeMouse({ kind: 'move', button: 'left', col: 1, row: 1 }, m('drag'))).toBe('\x1b[M@""');
    expect(encodeMouse({ kind: 'move', button: 'none', col: 1, row: 1 }, m('drag'))).toBeNull();
    expect(encodeMouse({ kind: 'move', button: 'none', col: 1, row: 1 }, m('any'))).toBe('\x1b[MC""');
  });

  it('SGR (1006) keeps the button on release and has no coordinate limit', () => {
    const t = m('vt200', 'sgr');
    expect(encodeMouse({ kind: 'press', button: 'left', col: 299, row: 9 }, t)).toBe('\x1b[<0;300;10M');
    expect(encodeMouse({ kind: 'release', button: 'left', col: 299, row: 9 }, t)).toBe('\x1b[<0;300;10m');
    expect(encodeMouse({ kind: 'wheel', button: 'wheelUp', col: 0, row: 0, ctrl: true }, t)).toBe('\x1b[<80;1;1M');
    expect(encodeMouse({ kind: 'move', button: 'middle', col: 4, row: 5 }, m('any', 'sgr'))).toBe('\x1b[<33;5;6M');
  });

  it('the default encoding cannot report past column 223', () => {
    expect(encodeMouse({ kind: 'press', button: 'left', col: 223, row: 0 }, m('vt200'))).toBeNull();
    expect(encodeMouse({ kind: 'press', button: 'left', col: 222, row: 0 }, m('vt200'))).toBe('\x1b[M \xff!');
  });

  it('URXVT (1015) and SGR pixels (1016)', () => {
    expect(encodeMouse({ kind: 'press', button: 'left', col: 0, row: 0 }, m('vt200', 'urxvt'))).toBe('\x1b[32;1;1M');
    expect(encodeMouse({ kind: 'press', button: 'left', col: 0, row: 0, x: 17, y: 40 }, m('vt200', 'sgrPixels'))).toBe('\x1b[<0;18;41M');
  });
});

describe('paste and focus', () => {
  it('paste converts newlines to CR and brackets only in bracketed paste mode', () => {
    expect(encodePaste('a\nb\r\nc', normal)).toBe('a\rb\rc');
    expect(encodePaste('x', { bracketedPaste: true })).toBe('\x1b[200~x\x1b[201~');
    expect(encodePaste('evil\x1b[201~rm -rf', { bracketedPaste: true })).toBe('\x1b[200~evilrm -rf\x1b[201~');
  });

  it('focus reports only when asked for', () => {
    expect(encodeFocus(true, normal)).toBeNull();
    expect(encodeFocus(true, { sendFocus: true })).toBe('\x1b[I');
    expect(encodeFocus(false, { sendFocus: true })).toBe('\x1b[O');
  });
});
