// What a blocked agent asks: the question's text, the context shown with it (the command, the
// file), and its choices, each with the keys that choose it in that agent's TUI. Read from a hook
// payload (questionHook.ts) or from the screen (questionScreen.ts); the two are merged here, and a
// fingerprint says whether the question a client read is still the one on screen.

/** The TUI conventions a question is answered in. claude and gemini (and Qwen Code, its fork)
 *  choose a numbered option by its digit (the digit alone submits); codex by its shortcut letter;
 *  opencode (OpenCode 1.18 and its fork Kilo Code) lays its permission choices out as a row of
 *  buttons, the first highlighted, moved along with ← → and chosen with Return, Esc rejecting;
 *  any other option, and every option in generic (any other program), by the arrows from the
 *  highlighted one and Return, which every list TUI takes. */
export type QuestionTui = 'claude' | 'codex' | 'gemini' | 'opencode' | 'generic';

export interface QuestionChoice {
  /** What the option says ("Yes", "No, exit"), its shortcut hint taken off. */
  label: string;
  /** The option's second line, when the TUI shows one ("Fast, Vite-native"). */
  description?: string;
  /** Keys to send, in order: a named key (Enter, Escape, ArrowDown) or one character. */
  keys: string[];
  /** The option the TUI highlights now (Return would choose it). */
  highlighted: boolean;
}

export interface Question {
  /** The question itself ("Do you want to proceed?", "Run `rm -rf build`?"). */
  text: string;
  /** What it is about, as the TUI shows it above the question (command, file), or ''. */
  context: string;
  choices: QuestionChoice[];
  /** Where it was read: the agent's hook payload, the screen, or both. */
  source: 'hook' | 'screen' | 'hook+screen';
  /** Text and choice labels hashed: equal fingerprints are the same question. */
  fingerprint: string;
}

/** Questions and labels are cut to this: a phone button or notification action shows a line. */
export const MAX_LABEL_CHARS = 120;
/** A question's text and its context are cut to this: enough for a long command, bounded. */
export const MAX_TEXT_CHARS = 600;
/** More options than a TUI menu ever shows are not a menu (a numbered list in the output). */
export const MAX_CHOICES = 12;

export function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** FNV-1a over the text and labels: cheap, stable, and not a security boundary (a client only
 *  uses it to tell "the question changed"). The highlight is left out: moving it is not a new question. */
export function fingerprintOf(text: string, labels: readonly string[]): string {
  let h = 0x811c9dc5;
  const s = `${text}\u0000${labels.join('\u0001')}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export function makeQuestion(text: string, context: string, choices: QuestionChoice[], source: Question['source']): Question {
  const t = clip(text, MAX_TEXT_CHARS);
  return {
    text: t,
    context: clip(context, MAX_TEXT_CHARS),
    choices,
    source,
    fingerprint: fingerprintOf(
      t,
      choices.map((c) => c.label),
    ),
  };
}

/**
 * One question from what the hook said and what the screen shows. The screen's choices win (its
 * keys are the TUI's own, and it shows options a payload leaves out, such as "Type something");
 * the hook's text wins (it names the command or file exactly), unless the hook only named a tool.
 */
export function mergeQuestions(hook: Question | null, screen: Question | null): Question | null {
  if (!hook) return screen;
  if (!screen) return hook;
  const context = hook.context || screen.context;
  return makeQuestion(hook.text, context, screen.choices, 'hook+screen');
}

/** The choice a user named: its number (1-based), its label (case-insensitive, or a unique
 *  prefix of one), or a key it is chosen with ("y"). Null when none or several match. */
export function findChoice(q: Question, name: string): QuestionChoice | null {
  const n = name.trim();
  if (/^\d+$/.test(n)) return q.choices[Number(n) - 1] ?? null;
  const lower = n.toLowerCase();
  const exact = q.choices.filter((c) => c.label.toLowerCase() === lower);
  if (exact.length === 1) return exact[0]!;
  const prefix = q.choices.filter((c) => c.label.toLowerCase().startsWith(lower));
  if (prefix.length === 1) return prefix[0]!;
  const byKey = q.choices.filter((c) => c.keys.length === 1 && c.keys[0]!.toLowerCase() === lower);
  return byKey.length === 1 ? byKey[0]! : null;
}
