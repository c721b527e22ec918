// Qt key events (key code, modifier bits, text) → the terminal layer's KeyInput. Pure, with
// Qt's numeric constants spelled out, so it is testable without loading Qt.
import type { KeyInput } from '../../../terminal/common';

/** Qt::KeyboardModifier bits. */
export const QtMod = {
  shift: 0x02000000,
  control: 0x04000000,
  alt: 0x08000000,
  meta: 0x10000000,
  keypad: 0x20000000,
} as const;

/** Qt::Key values for the keys a terminal names (qnamespace.h). */
const namedKeys: Record<number, string> = {
  0x01000000: 'Escape',
  0x01000001: 'Tab',
  0x01000002: 'Tab',
  0x01000003: 'Backspace',
  0x01000004: 'Enter',
  0x01000005: 'NumpadEnter',
  0x01000006: 'Insert',
  0x01000007: 'Delete',
  0x01000010: 'Home',
  0x01000011: 'End',
  0x01000012: 'ArrowLeft',
  0x01000013: 'ArrowUp',
  0x01000014: 'ArrowRight',
  0x01000015: 'ArrowDown',
  0x01000016: 'PageUp',
  0x01000017: 'PageDown',
  0x20: 'Space',
};
const QT_KEY_F1 = 0x01000030;
const QT_KEY_F20 = 0x01000043;
const QT_KEY_BACKTAB = 0x01000002;
/** Modifier-only keys (Shift, Control, Meta, Alt, CapsLock, NumLock, ScrollLock, AltGr…). */
const isModifierKey = (k: number): boolean => (k >= 0x01000020 && k <= 0x01000026) || k === 0x01001103;
const keypadSymbols: Record<string, string> = {
  '0': 'Numpad0',
  '1': 'Numpad1',
  '2': 'Numpad2',
  '3': 'Numpad3',
  '4': 'Numpad4',
  '5': 'Numpad5',
  '6': 'Numpad6',
  '7': 'Numpad7',
  '8': 'Numpad8',
  '9': 'Numpad9',
  '+': 'NumpadAdd',
  '-': 'NumpadSubtract',
  '*': 'NumpadMultiply',
  '/': 'NumpadDivide',
  '.': 'NumpadDecimal',
  '=': 'NumpadEqual',
};

export interface KeyMappingOptions {
  /** Qt on macOS reports Cmd as Control and Control as Meta. */
  macOS: boolean;
  /** macOS: Option acts as Meta (ESC prefix) instead of composing characters. */
  optionAsMeta: boolean;
}

/** The KeyInput for a Qt key press, or null for keys a terminal ignores (bare modifiers). */
export function keyInputFromQt(key: number, modifiers: number, text: string, opts: KeyMappingOptions): KeyInput | null {
  if (isModifierKey(key)) return null;
  const shift = (modifiers & QtMod.shift) !== 0;
  const ctrl = (modifiers & (opts.macOS ? QtMod.meta : QtMod.control)) !== 0;
  const meta = (modifiers & (opts.macOS ? QtMod.control : QtMod.meta)) !== 0;
  let alt = (modifiers & QtMod.alt) !== 0;
  const keypad = (modifiers & QtMod.keypad) !== 0;
  // Option composes characters on macOS unless it is configured as Meta.
  if (alt && opts.macOS && !opts.optionAsMeta) alt = false;
  const base = { shift: shift || key === QT_KEY_BACKTAB, ctrl, alt, meta };

  const named = namedKeys[key];
  if (named) return { key: named, ...base };
  if (key >= QT_KEY_F1 && key <= QT_KEY_F20) return { key: `F${key - QT_KEY_F1 + 1}`, ...base };
  // Printable keys: Qt gives the (upper-case) character of the key; the text carries what the
  // layout produced with its modifiers (useless with Ctrl, where it is a control character).
  const printable = text && text >= ' ' && text !== '\x7f' ? text : undefined;
  if (key > 0 && key < 0x01000000) {
    const ch = String.fromCodePoint(key);
    if (keypad && keypadSymbols[ch]) return { key: keypadSymbols[ch], ...base };
    const k = ch.toLowerCase();
    const input: KeyInput = { key: k, ...base };
    if (printable && !ctrl && !alt) input.text = printable;
    // Option as Meta: the text Qt reports is what Option composed (∫ for ⌥B); Meta wants the
    // key's own character (b, or B with Shift) after the ESC.
    else if (alt && !ctrl && opts.macOS) input.text = shift ? ch : k;
    else if (printable && alt && !ctrl) input.text = printable.length === 1 ? printable : undefined;
    return input;
  }
  // Keys Qt does not know (Key_unknown) but that produced text: dead keys, some layouts.
  if (printable) return { key: 'Unidentified', text: printable, ...base };
  return null;
}
