// Keyboard, mouse, paste and focus input → the bytes a terminal application expects, honouring
// the modes the application set (cursor/keypad application modes, kitty keyboard protocol,
// modifyOtherKeys, mouse tracking and encodings, bracketed paste, focus reporting). Pure functions.
import { KittyFlags, type MouseEncoding } from './terminalModes';

export interface KeyInput {
  /** 'Enter', 'Tab', 'Backspace', 'Escape', 'ArrowUp', 'Home', 'PageDown', 'Insert', 'Delete',
   *  'F1'…'F20', 'Numpad0'…'Numpad9', 'NumpadEnter', 'NumpadAdd', 'NumpadSubtract',
   *  'NumpadMultiply', 'NumpadDivide', 'NumpadDecimal', 'NumpadEqual', 'Space', or the
   *  character the key produces without modifiers ('a', '1', ';'). */
  key: string;
  /** The text the key produces with its modifiers applied ('A' for Shift+a), if any. */
  text?: string;
  shift?: boolean;
  ctrl?: boolean;
  /** Alt, or Option when Option acts as Meta. */
  alt?: boolean;
  /** Cmd on macOS, Super elsewhere: only the kitty protocol can carry it. */
  meta?: boolean;
}

export type MouseTrackingMode = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

export interface InputModes {
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  bracketedPaste: boolean;
  mouseTracking: MouseTrackingMode;
  mouseEncoding: MouseEncoding;
  sendFocus: boolean;
  /** Kitty keyboard protocol flags in force (0 = legacy). */
  kittyFlags: number;
  /** xterm modifyOtherKeys level (0 = off, 1, 2). */
  modifyOtherKeys: number;
}

export const defaultInputModes: InputModes = {
  applicationCursorKeys: false,
  applicationKeypad: false,
  bracketedPaste: false,
  mouseTracking: 'none',
  mouseEncoding: 'default',
  sendFocus: false,
  kittyFlags: 0,
  modifyOtherKeys: 0,
};

export interface KeyEncodingOptions {
  /** Bytes for Shift+Enter when the application enabled neither the kitty protocol nor
   *  modifyOtherKeys. Default ESC CR (see DEFAULT_SHIFT_ENTER). */
  shiftEnter?: string;
}

/**
 * Shift+Enter when the application asked for no extended key reporting: ESC CR, i.e. what
 * Alt/Option+Enter sends. Claude Code's /terminal-setup binds Shift+Enter to exactly this in
 * terminals without native support and treats Option+Enter as "newline"; Codex (crossterm)
 * decodes ESC CR as Alt+Enter, which its composer also takes as a newline. '\n' (Ctrl+J) would
 * work for both agents too, but in a plain shell it runs the command line like Enter does.
 */
export const DEFAULT_SHIFT_ENTER = '\x1b\r';

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';

/** xterm's modifier parameter: 1 + shift·1 + alt·2 + ctrl·4 + meta·8 (meta = kitty "super"). */
export function modifierParam(k: { shift?: boolean; alt?: boolean; ctrl?: boolean; meta?: boolean }): number {
  return 1 + (k.shift ? 1 : 0) + (k.alt ? 2 : 0) + (k.ctrl ? 4 : 0) + (k.meta ? 8 : 0);
}

/** Cursor-like keys: final byte for CSI/SS3 forms. */
const cursorFinals: Record<string, string> = {
  ArrowUp: 'A',
  ArrowDown: 'B',
  ArrowRight: 'C',
  ArrowLeft: 'D',
  Home: 'H',
  End: 'F',
};

/** Keys sent as CSI n ~. */
const tildeCodes: Record<string, number> = {
  Insert: 2,
  Delete: 3,
  PageUp: 5,
  PageDown: 6,
  F5: 15,
  F6: 17,
  F7: 18,
  F8: 19,
  F9: 20,
  F10: 21,
  F11: 23,
  F12: 24,
  F13: 25,
  F14: 26,
  F15: 28,
  F16: 29,
  F17: 31,
  F18: 32,
  F19: 33,
  F20: 34,
};

/** F1–F4: SS3 P..S unmodified, CSI 1;m P..S modified. */
const pfFinals: Record<string, string> = { F1: 'P', F2: 'Q', F3: 'R', F4: 'S' };

/** Application keypad (DECKPAM) SS3 finals and the text each keypad key types otherwise. */
const keypad: Record<string, { app: string; text: string }> = {
  Numpad0: { app: 'p', text: '0' },
  Numpad1: { app: 'q', text: '1' },
  Numpad2: { app: 'r', text: '2' },
  Numpad3: { app: 's', text: '3' },
  Numpad4: { app: 't', text: '4' },
  Numpad5: { app: 'u', text: '5' },
  Numpad6: { app: 'v', text: '6' },
  Numpad7: { app: 'w', text: '7' },
  Numpad8: { app: 'x', text: '8' },
  Numpad9: { app: 'y', text: '9' },
  NumpadEnter: { app: 'M', text: '\r' },
  NumpadAdd: { app: 'k', text: '+' },
  NumpadSubtract: { app: 'm', text: '-' },
  NumpadMultiply: { app: 'j', text: '*' },
  NumpadDivide: { app: 'o', text: '/' },
  NumpadDecimal: { app: 'n', text: '.' },
  NumpadEqual: { app: 'X', text: '=' },
};

/** Functional keys with a C0 byte of their own, and their kitty key codes. */
const c0Keys: Record<string, { byte: string; code: number }> = {
  Enter: { byte: '\r', code: 13 },
  Tab: { byte: '\t', code: 9 },
  Backspace: { byte: '\x7f', code: 127 },
  Escape: { byte: ESC, code: 27 },
};

/** Ctrl + a non-letter character → its C0 byte, as xterm and VT220s map them. */
const ctrlPunct: Record<string, string> = {
  ' ': '\x00',
  '@': '\x00',
  '2': '\x00',
  '[': ESC,
  '3': ESC,
  '\\': '\x1c',
  '4': '\x1c',
  ']': '\x1d',
  '5': '\x1d',
  '^': '\x1e',
  '6': '\x1e',
  _: '\x1f',
  '-': '\x1f',
  '/': '\x1f',
  '7': '\x1f',
  '?': '\x7f',
  '8': '\x7f',
};

function baseChar(k: KeyInput): string | null {
  if (k.key === 'Space') return ' ';
  return [...k.key].length === 1 ? k.key : null;
}

/**
 * The bytes for one key press, or null when the key sends nothing to the application (a bare
 * modifier, Cmd/Super combos outside the kitty protocol: the view may use those as shortcuts).
 */
export function encodeKey(k: KeyInput, modes: InputModes = defaultInputModes, opts: KeyEncodingOptions = {}): string | null {
  const kitty = modes.kittyFlags;
  if (kitty & (KittyFlags.disambiguate | KittyFlags.reportAllKeysAsEscapes)) {
    const r = encodeKittyKey(k, modes, kitty);
    if (r !== undefined) return r;
  } else if (k.meta) {
    return null;
  }
  const named = encodeNamedKey(k, modes, opts);
  return named !== undefined ? named : encodeCharacterKey(k, modes);
}

/** Cursor, editing, function, keypad and C0 keys (Enter, Tab…) in the legacy and modifyOtherKeys
 *  forms; undefined for any other key. */
function encodeNamedKey(k: KeyInput, modes: InputModes, opts: KeyEncodingOptions): string | null | undefined {
  const mods = modifierParam(k);
  const modified = mods > 1;
  // Cursor keys, Home/End.
  const cf = cursorFinals[k.key];
  if (cf) {
    if (modified) return `${CSI}1;${mods}${cf}`;
    return (modes.applicationCursorKeys ? SS3 : CSI) + cf;
  }
  const tilde = tildeCodes[k.key];
  if (tilde !== undefined) return modified ? `${CSI}${tilde};${mods}~` : `${CSI}${tilde}~`;
  const pf = pfFinals[k.key];
  if (pf) return modified ? `${CSI}1;${mods}${pf}` : SS3 + pf;

  const kp = keypad[k.key];
  if (kp) {
    if (modes.applicationKeypad) return modified ? `${SS3}${mods}${kp.app}` : SS3 + kp.app;
    return encodeKey({ ...k, key: kp.text === '\r' ? 'Enter' : kp.text, text: kp.text === '\r' ? undefined : kp.text }, modes, opts);
  }

  const c0 = c0Keys[k.key];
  if (!c0) return undefined;
  if (modes.modifyOtherKeys > 0 && modified && !(k.key === 'Tab' && mods === 2 && modes.modifyOtherKeys === 1)) {
    return `${CSI}27;${mods};${c0.code}~`;
  }
  if (k.key === 'Enter' && k.shift && !k.ctrl && !k.alt) return opts.shiftEnter ?? DEFAULT_SHIFT_ENTER;
  if (k.key === 'Tab' && k.shift) return (k.alt ? ESC : '') + `${CSI}Z`;
  let byte = c0.byte;
  if (k.key === 'Backspace' && k.ctrl) byte = '\x08';
  return (k.alt ? ESC : '') + byte;
}

/** A key that types a character, with Ctrl and Alt in the legacy or modifyOtherKeys form; null
 *  for an unnamed key that types nothing (a bare modifier, a media key). */
function encodeCharacterKey(k: KeyInput, modes: InputModes): string | null {
  const ch = baseChar(k);
  if (ch === null) {
    // An unnamed key (a bare modifier, media key…) or a composed multi-character text.
    if (k.text && !k.ctrl) return (k.alt ? ESC : '') + k.text;
    return null;
  }
  const text = k.text ?? (k.shift ? ch.toUpperCase() : ch);

  if (modes.modifyOtherKeys > 0 && (k.ctrl || k.alt)) {
    const letter = /^[a-z]$/i.test(ch);
    // Level 1 leaves the combinations that have a well-known legacy meaning alone.
    const legacyCtrl = k.ctrl && !k.alt && !k.shift && (letter || ch in ctrlPunct);
    const legacyAlt = k.alt && !k.ctrl;
    if (modes.modifyOtherKeys === 2 || !(legacyCtrl || legacyAlt)) {
      return `${CSI}27;${modifierParam(k)};${text.codePointAt(0)}~`;
    }
  }

  if (k.ctrl) {
    let byte: string | undefined;
    if (/^[a-z]$/i.test(ch)) byte = String.fromCharCode(ch.toLowerCase().charCodeAt(0) & 0x1f);
    else byte = ctrlPunct[ch] ?? ctrlPunct[text];
    if (byte === undefined) return k.alt ? ESC + text : text;
    return (k.alt ? ESC : '') + byte;
  }
  return (k.alt ? ESC : '') + text;
}

/** Kitty keyboard protocol, flags 1 (disambiguate) and 8 (all keys as escapes). Returns
 *  undefined for keys whose legacy encoding the protocol keeps. */
function encodeKittyKey(k: KeyInput, modes: InputModes, flags: number): string | null | undefined {
  const mods = modifierParam(k);
  const modified = mods > 1;
  const all = (flags & KittyFlags.reportAllKeysAsEscapes) !== 0;
  const suffix = (code: number): string => (modified ? `${CSI}${code};${mods}u` : `${CSI}${code}u`);

  const c0 = c0Keys[k.key];
  if (c0) {
    if (k.key === 'Escape') return suffix(27);
    if (!modified && !all) return c0.byte;
    return suffix(c0.code);
  }
  // F3 moves to CSI 13 ~ because CSI R collides with the cursor position report.
  if (k.key === 'F3') return modified ? `${CSI}13;${mods}~` : `${SS3}R`;
  if (cursorFinals[k.key] || tildeCodes[k.key] !== undefined || pfFinals[k.key]) {
    if (!modified && all) {
      const cf = cursorFinals[k.key];
      // Under "all keys as escapes" cursor keys ignore application cursor mode.
      if (cf) return CSI + cf;
    }
    return undefined;
  }
  if (keypad[k.key]) return undefined;

  const ch = baseChar(k);
  if (ch === null) return k.text && !k.ctrl && !k.alt && !k.meta ? k.text : null;
  const onlyShift = !k.ctrl && !k.alt && !k.meta;
  if (onlyShift && !all) return k.text ?? (k.shift ? ch.toUpperCase() : ch);
  // Kitty reports the unshifted key's code point; shift travels in the modifiers.
  return suffix(ch.toLowerCase().codePointAt(0)!);
}

export type MouseButton = 'left' | 'middle' | 'right' | 'none' | 'wheelUp' | 'wheelDown' | 'wheelLeft' | 'wheelRight';

export interface MouseInput {
  kind: 'press' | 'release' | 'move' | 'wheel';
  /** The button pressed/released; for 'move', the button held ('none' if none). */
  button: MouseButton;
  /** Zero-based cell coordinates. */
  col: number;
  row: number;
  /** Pixel position inside the terminal area, for SGR-pixels (?1016). */
  x?: number;
  y?: number;
  shift?: boolean;
  alt?: boolean;
  ctrl?: boolean;
}

const buttonCodes: Record<MouseButton, number> = {
  left: 0,
  middle: 1,
  right: 2,
  none: 3,
  wheelUp: 64,
  wheelDown: 65,
  wheelLeft: 66,
  wheelRight: 67,
};

/** The default (X10-style) encoding adds 32 to every value and fits in one byte: coordinates
 *  past 223 (255 − 32) cannot be reported. */
const DEFAULT_ENCODING_MAX_COORD = 223;

/** The report for a mouse event, or null when the application did not ask for this event. */
export function encodeMouse(e: MouseInput, modes: InputModes): string | null {
  const mode = modes.mouseTracking;
  if (mode === 'none') return null;
  const isWheel = e.kind === 'wheel';
  if (mode === 'x10' && e.kind !== 'press') return null;
  if (e.kind === 'move') {
    if (mode === 'vt200') return null;
    if (mode === 'drag' && e.button === 'none') return null;
  }
  let code = buttonCodes[e.button];
  if (isWheel && code < 64) return null;
  if (e.kind === 'move') code = (e.button === 'none' || code >= 64 ? 3 : code) + 32;
  if (mode !== 'x10') code += (e.shift ? 4 : 0) + (e.alt ? 8 : 0) + (e.ctrl ? 16 : 0);
  const x = e.col + 1;
  const y = e.row + 1;

  switch (modes.mouseEncoding) {
    case 'sgr':
    case 'sgrPixels': {
      const px = modes.mouseEncoding === 'sgrPixels' ? Math.round(e.x ?? e.col) + 1 : x;
      const py = modes.mouseEncoding === 'sgrPixels' ? Math.round(e.y ?? e.row) + 1 : y;
      return `${CSI}<${code};${px};${py}${e.kind === 'release' ? 'm' : 'M'}`;
    }
    case 'urxvt':
      return `${CSI}${legacyCode(e, code) + 32};${x};${y}M`;
    case 'utf8':
      return `${CSI}M${String.fromCodePoint(legacyCode(e, code) + 32)}${utf8Coord(x)}${utf8Coord(y)}`;
    default:
      if (x > DEFAULT_ENCODING_MAX_COORD || y > DEFAULT_ENCODING_MAX_COORD) return null;
      return `${CSI}M${String.fromCharCode(legacyCode(e, code) + 32)}${String.fromCharCode(x + 32)}${String.fromCharCode(y + 32)}`;
  }
}

/** Releases carry no button in the pre-SGR encodings (button code 3); modifiers stay. */
function legacyCode(e: MouseInput, code: number): number {
  return e.kind === 'release' ? 3 + (code & 0b11100) : code;
}

/** ?1005 sends each coordinate + 32 as one UTF-8 character, up to 2015 (U+07FF, two bytes). */
const UTF8_ENCODING_MAX_COORD = 2015;
function utf8Coord(v: number): string {
  return String.fromCodePoint(Math.min(v, UTF8_ENCODING_MAX_COORD) + 32);
}

/** Pasted text: newlines as CR (what Enter sends), wrapped in ESC[200~ … ESC[201~ under
 *  bracketed paste, with any embedded end marker removed so the paste cannot break out. */
export function encodePaste(text: string, modes: Pick<InputModes, 'bracketedPaste'>): string {
  const body = text.replace(/\r?\n/g, '\r');
  if (!modes.bracketedPaste) return body;
  return `${CSI}200~${body.split(`${CSI}200~`).join('').split(`${CSI}201~`).join('')}${CSI}201~`;
}

/** Focus in/out report (?1004), or null when the application did not ask for it. */
export function encodeFocus(focused: boolean, modes: Pick<InputModes, 'sendFocus'>): string | null {
  if (!modes.sendFocus) return null;
  return focused ? `${CSI}I` : `${CSI}O`;
}
