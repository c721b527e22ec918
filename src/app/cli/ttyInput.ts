// What the terminal `termio attach` runs in sends (raw-mode bytes) → input intents for the host:
// printable characters, control keys, cursor and function keys with modifiers, bracketed pastes
// and focus reports. The host re-encodes them with the attached application's own modes, so an
// arrow key reaches vim as vim asked for it whatever mode the outer terminal is in. Pure.
import type { InputIntent } from '../../protocol/hostMessages';

/** Ctrl-] (GS): detaches, like telnet's escape; applications almost never need it. */
export const DETACH_BYTE = 0x1d;

export type TtyEvent = InputIntent | { kind: 'detach' };

const ESC = '\x1b';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** A paste is held until its end marker; past 1 MiB (the host's message limit) it is sent in parts. */
const MAX_PASTE_CHUNK = 512 * 1024;

const csiFinals: Record<string, string> = {
  A: 'ArrowUp',
  B: 'ArrowDown',
  C: 'ArrowRight',
  D: 'ArrowLeft',
  H: 'Home',
  F: 'End',
  P: 'F1',
  Q: 'F2',
  R: 'F3',
  S: 'F4',
};
const tildeKeys: Record<number, string> = {
  1: 'Home',
  2: 'Insert',
  3: 'Delete',
  4: 'End',
  5: 'PageUp',
  6: 'PageDown',
  7: 'Home',
  8: 'End',
  11: 'F1',
  12: 'F2',
  13: 'F3',
  14: 'F4',
  15: 'F5',
  17: 'F6',
  18: 'F7',
  19: 'F8',
  20: 'F9',
  21: 'F10',
  23: 'F11',
  24: 'F12',
};

function mods(param: number | undefined): { shift?: boolean; alt?: boolean; ctrl?: boolean; meta?: boolean } {
  if (!param || param < 2) return {};
  const m = param - 1;
  return { shift: m & 1 ? true : undefined, alt: m & 2 ? true : undefined, ctrl: m & 4 ? true : undefined, meta: m & 8 ? true : undefined };
}

/** One character → a key intent (control characters as Ctrl+key). */
function charKey(ch: string, alt: boolean): InputIntent {
  const a = alt ? { alt: true } : {};
  const code = ch.codePointAt(0)!;
  if (ch === '\r' || ch === '\n') return { kind: 'key', key: 'Enter', ...a };
  if (ch === '\t') return { kind: 'key', key: 'Tab', ...a };
  if (code === 0x7f) return { kind: 'key', key: 'Backspace', ...a };
  if (code === 0x08) return { kind: 'key', key: 'Backspace', ctrl: true, ...a };
  if (code === 0) return { kind: 'key', key: 'Space', ctrl: true, ...a };
  if (code < 0x1b) return { kind: 'key', key: String.fromCharCode(code + 0x60), ctrl: true, ...a };
  if (code < 0x20) return { kind: 'key', key: String.fromCharCode(code + 0x40).toLowerCase(), ctrl: true, ...a };
  if (ch === ' ') return { kind: 'key', key: 'Space', text: ' ', ...a };
  return { kind: 'key', key: ch, text: ch, ...a };
}

/**
 * How long a lone ESC waits for the rest of a sequence before it counts as the Escape key: far
 * longer than the gap inside one sequence split across reads (even over SSH), far shorter than a
 * person notices (tmux's escape-time default, 500 ms, is a known annoyance for vim users).
 */
export const ESCAPE_TIMEOUT_MS = 50;

/**
 * Stateful: a sequence split across reads is completed by the next push; a paste is held until
 * its end marker. What is held that could still become a sequence (a lone ESC, "ESC [ 1 ;") is
 * given out by flush(), which the caller runs ESCAPE_TIMEOUT_MS after a push left it pending.
 */
export class TtyInputDecoder {
  private paste: string | null = null;
  private held = '';

  /** Something is held that only more input (or flush) resolves. */
  get pending(): boolean {
    return this.paste === null && this.held !== '';
  }

  /** No more input came: a held ESC is the Escape key, a held "ESC [" is Alt+[ and the rest. */
  flush(): TtyEvent[] {
    if (!this.pending) return [];
    const held = this.held;
    this.held = '';
    const out: TtyEvent[] = [{ kind: 'key', key: 'Escape' }];
    if (held.length === 1) return out;
    out.length = 0;
    out.push({ kind: 'key', key: held[1]!, text: held[1]!, alt: true });
    for (const ch of held.slice(2)) out.push(charKey(ch, false));
    return out;
  }

  push(text: string): TtyEvent[] {
    const out: TtyEvent[] = [];
    const s = this.held + text;
    this.held = '';
    let i = 0;
    while (i < s.length) {
      const next = this.paste !== null ? this.pasteStep(s, i, out) : s[i] === ESC ? this.escapeStep(s, i, out) : charStep(s, i, out);
      // The rest is held until more input comes.
      if (next < 0) return out;
      i = next;
    }
    return out;
  }

  /** Inside a paste: takes it up to its end marker (returns the index after it), else all of it and -1. */
  private pasteStep(s: string, i: number, out: TtyEvent[]): number {
    const held = this.paste ?? '';
    const end = s.indexOf(PASTE_END, i);
    if (end < 0) {
      // Keep a possible partial end marker for the next read.
      const keep = Math.min(PASTE_END.length - 1, s.length - i);
      const paste = held + s.slice(i, s.length - keep);
      this.held = s.slice(s.length - keep);
      if (paste.length > MAX_PASTE_CHUNK) out.push({ kind: 'paste', text: paste });
      this.paste = paste.length > MAX_PASTE_CHUNK ? '' : paste;
      return -1;
    }
    out.push({ kind: 'paste', text: held + s.slice(i, end) });
    this.paste = null;
    return end + PASTE_END.length;
  }

  /** At an ESC: an escape sequence, or Alt+key, or the Escape key; -1 when only more input can tell. */
  private escapeStep(s: string, i: number, out: TtyEvent[]): number {
    if (i + 1 >= s.length) {
      this.held = ESC;
      return -1;
    }
    const next = s[i + 1]!;
    if (next !== '[' && next !== 'O') {
      // ESC + a character: Alt/Option+key.
      const c = String.fromCodePoint(s.codePointAt(i + 1)!);
      out.push(charKey(c, true));
      return i + 1 + c.length;
    }
    // eslint-disable-next-line no-control-regex -- escape sequences are what this parses
    const m = /^(?:\x1b\[([0-9;]*)([A-Za-z~])|\x1bO([A-Za-z]))/.exec(s.slice(i, i + 32));
    if (!m) {
      // Incomplete: wait for the rest, unless it can no longer become a sequence.
      // eslint-disable-next-line no-control-regex -- escape sequences are what this parses
      if (s.length - i < 32 && /^\x1b[[O][0-9;]*$/.test(s.slice(i))) {
        this.held = s.slice(i);
        return -1;
      }
      out.push({ kind: 'key', key: next === '[' ? '[' : 'O', text: next, alt: true });
      return i + 2;
    }
    if (m[0] === PASTE_START) this.paste = '';
    else {
      const e = sequenceEvent(m);
      if (e) out.push(e);
    }
    return i + m[0].length;
  }
}

/** A character that starts no sequence: Ctrl-] detaches, anything else is a key. */
function charStep(s: string, i: number, out: TtyEvent[]): number {
  if (s.charCodeAt(i) === DETACH_BYTE) {
    out.push({ kind: 'detach' });
    return i + 1;
  }
  const c = String.fromCodePoint(s.codePointAt(i)!);
  out.push(charKey(c, false));
  return i + c.length;
}

/** A complete CSI or SS3 sequence (groups: CSI params, CSI final, SS3 final) → its event, if it means one. */
function sequenceEvent(m: RegExpExecArray): TtyEvent | null {
  if (m[3]) {
    const key = csiFinals[m[3]];
    return key ? { kind: 'key', key } : null;
  }
  const params = (m[1] ?? '').split(';').map((p) => (p === '' ? undefined : Number(p)));
  const final = m[2]!;
  if (final === 'I' || final === 'O') return { kind: 'focus', focused: final === 'I' };
  if (final === 'Z') return { kind: 'key', key: 'Tab', shift: true };
  const key = final === '~' ? tildeKeys[params[0] ?? 0] : csiFinals[final];
  return key ? { kind: 'key', key, ...mods(params[1]) } : null;
}
