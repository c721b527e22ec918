// Typing text into a program the way a TUI expects it: as a bracketed paste when the program
// turned mode 2004 on, and Return as a key of its own once the paste has been taken (its echo
// has settled). TUIs that guess pastes from timing (Codex) read "text\r" arriving in one burst
// as a paste and keep the Return in it, leaving the message unsent.
import type { Session } from '../../../terminal/node';

export interface TypingLimits {
  /** A program that turned bracketed paste on redraws its input line for a paste: Return waits
   *  for that echo, up to this long. The echo comes in milliseconds; a TUI starved of CPU on a
   *  loaded machine may read nothing for seconds, and a Return that reaches it before it read the
   *  paste is read with it, which a TUI guessing pastes from timing keeps in the paste. A program
   *  that draws nothing for this long is not showing its composer (a dialog that ignores pastes,
   *  such as OpenCode's permission prompt, where Return would choose its highlighted button): no
   *  Return is pressed. Kept well below the 10 s a `termio` request waits for its answer
   *  (REQUEST_TIMEOUT_MS), so `sessions send` answers either way. */
  pasteEchoMs: number;
  /** A program without bracketed paste (a shell's plain read, a password prompt) may never echo:
   *  Return follows after at most this long. */
  plainEchoMs: number;
  /** The echo has settled once the program drew nothing for this long: a TUI paints a paste in
   *  one or two frames (~16 ms apart) and then waits for keys. */
  settleMs: number;
  /** A program that keeps painting (a spinner while it works) never goes quiet: Return follows
   *  this long after its first frame whatever it draws. */
  maxSettleMs: number;
}

export const defaultTypingLimits: TypingLimits = {
  pasteEchoMs: 5_000,
  plainEchoMs: 100,
  settleMs: 120,
  maxSettleMs: 2_000,
};

/** The part of a Session typing needs (src/terminal's Session satisfies it). */
export type TypingTarget = Pick<Session, 'write' | 'paste' | 'sendKey' | 'inputModes' | 'onRender' | 'exited' | 'whenParsed'>;

/** How typing went: the text went as a paste or not; `taken` false: the program's unread input
 *  is at the cap, nothing was typed and no Return pressed; `unechoed`: the program drew nothing
 *  for a paste within pasteEchoMs, so Return was not pressed (the text may still be read later). */
export interface Typed {
  pasted: boolean;
  taken: boolean;
  unechoed: boolean;
}

/**
 * Types `text` (a paste when the program asked for bracketed paste) and, with `enter`, presses
 * Return once the echo has settled (not when a paste got no echo at all) and `beforeEnter` has
 * resolved. `alive` says whether the session is still worth typing into (closed meanwhile: the
 * Return is not sent). Resolves once everything was written.
 */
export async function typeText(
  s: TypingTarget,
  text: string,
  enter: boolean,
  opts: { limits?: Partial<TypingLimits>; alive?: () => boolean; beforeEnter?: () => Promise<void> } = {},
): Promise<Typed> {
  const limits = { ...defaultTypingLimits, ...opts.limits };
  const alive = () => !s.exited && (opts.alive?.() ?? true);
  // The modes the program set are known once the output it wrote so far has been parsed.
  await s.whenParsed();
  let pasted = false;
  if (text && alive()) {
    pasted = s.inputModes.bracketedPaste;
    const taken = pasted ? s.paste(text) : s.write(text);
    if (!taken) return { pasted, taken: false, unechoed: false };
  }
  if (!enter) return { pasted, taken: true, unechoed: false };
  const echoed = text ? await echoSettled(s, pasted ? limits.pasteEchoMs : limits.plainEchoMs, limits) : true;
  // A program without bracketed paste may never echo (a password prompt): Return goes anyway.
  if (pasted && !echoed) return { pasted, taken: true, unechoed: true };
  await opts.beforeEnter?.();
  // As the key, encoded for the keyboard mode the program chose (kitty's CSI 13 u when it asked for every key as an escape code).
  if (alive()) s.sendKey({ key: 'Enter' });
  return { pasted, taken: true, unechoed: false };
}

/** Resolves true once the program drew something and then went quiet (or kept drawing for
 *  maxSettleMs), false when it drew nothing for echoMs. */
export function echoSettled(s: Pick<Session, 'onRender'>, echoMs: number, limits: Pick<TypingLimits, 'settleMs' | 'maxSettleMs'>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let quiet: NodeJS.Timeout | null = null;
    let cap: NodeJS.Timeout | null = null;
    const done = (drew: boolean) => {
      clearTimeout(noEcho);
      if (cap) clearTimeout(cap);
      if (quiet) clearTimeout(quiet);
      sub.dispose();
      resolve(drew);
    };
    const noEcho = setTimeout(() => done(false), echoMs);
    const sub = s.onRender(() => {
      clearTimeout(noEcho);
      cap ??= setTimeout(() => done(true), limits.maxSettleMs);
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(() => done(true), limits.settleMs);
    });
  });
}

/** Whether the screen shows a paste of `text` waiting in a composer: the start of its first line
 *  or the end of its last (a composer scrolled to its end), whitespace collapsed, or the
 *  placeholder TUIs draw for a long paste ("[Pasted text #1 +12 lines]"). */
export function pasteShown(screen: readonly string[], text: string): boolean {
  const collapse = (l: string) => l.replace(/\s+/g, ' ').trim();
  const lines = text.split(/\r?\n/).map(collapse).filter(Boolean);
  if (lines.length === 0) return true;
  const rows = screen.map(collapse);
  if (rows.some((r) => /\bpasted\b/i.test(r))) return true;
  const head = lines[0]!.slice(0, 16);
  const tail = lines[lines.length - 1]!.slice(-16);
  return rows.some((r) => r.includes(head) || r.includes(tail));
}

/**
 * Pastes `text` again while the screen does not show it, up to `tries` times, each waiting for
 * its echo until `deadline` (performance.now()). A TUI still starting may draw its composer and
 * then drop what was typed before it read its input (OpenCode, when the machine is loaded): the
 * redraw looked like the paste's echo, and Return would submit an empty composer.
 */
export async function repasteUnshown(s: TypingTarget & Pick<Session, 'screenLines'>, text: string, deadline: number, tries = 2): Promise<void> {
  for (let i = 0; i < tries && s.inputModes.bracketedPaste && !s.exited; i++) {
    await s.whenParsed();
    if (pasteShown(s.screenLines(), text)) return;
    const left = deadline - performance.now();
    if (left <= 0 || !s.paste(text)) return;
    await echoSettled(s, left, defaultTypingLimits);
  }
}

/**
 * How a chunk the phone page typed is delivered: several printable characters at once (a
 * keyboard's suggestion, dictation, a paste without brackets) are text, and a Return at their
 * end is pressed on its own; anything else (a key, an escape sequence, a bracketed paste the
 * page's terminal already made) goes as it is.
 */
export function splitTypedChunk(data: string): { text: string; enter: boolean } | null {
  if (data.includes('\x1b')) return null;
  const enter = /\r\n?$|\n$/.test(data);
  const text = enter ? data.replace(/\r\n?$|\n$/, '') : data;
  // One character (or a lone Return) is a keystroke: the program reads it as the user typing.
  if ([...text].length < 2) return null;
  // Control characters other than tab and newline are keys (Ctrl+C, Backspace), not text.
  if (
    [...text].some((c) => {
      const n = c.charCodeAt(0);
      return (n < 0x20 && c !== '\t' && c !== '\n') || n === 0x7f;
    })
  )
    return null;
  return { text, enter };
}
