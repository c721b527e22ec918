// A question read off the screen, for any TUI: a numbered selection menu with one option
// highlighted (`❯ 1. Yes`, `● 1. Allow once`, `› 1. Yes, proceed (y)`), or a `(y/n)` prompt on the
// last line. Its text is the question sentence above the menu, its context the lines above that
// (the command, the folder). Pure: the screen arrives as text rows.
import { clip, makeQuestion, MAX_CHOICES, MAX_LABEL_CHARS, type Question, type QuestionChoice, type QuestionTui } from './question';

/** A menu is live only near the bottom of the screen: past its options, the hints and the box's
 *  bottom take a few rows (Gemini's sign-in dialog shows six); a numbered list with more output
 *  below it is something the agent printed, not a question waiting. */
const MAX_ROWS_AFTER_MENU = 7;
/** Lines between two options: a description (Codex, AskUserQuestion), a blank, a rule. */
const MAX_ROWS_BETWEEN_OPTIONS = 3;
/** How far above the menu the question and its context are looked for. */
const MAX_ROWS_ABOVE_MENU = 14;
/** Context lines kept (a command, its description, a folder). */
const MAX_CONTEXT_ROWS = 6;

// The screen's glyphs are written as \u escapes: a bundled process keeps its source in memory,
// and one non-ASCII character makes all of it two bytes a character (scripts/bundle.mjs).
/** A numbered option, maybe behind a marker: ❯ › > ● ▶ ► → ▸. */
const OPTION = /^(\s*)([\u276F\u203A>\u25CF\u25B6\u25BA\u2192\u25B8]\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$/;
/** A rule or a box's edge: ─ ━ ═ ╌ ┄ ┈, the corners ╭ ╮ ╰ ╯ ┌ ┐ └ ┘, and the sides │ ┃. */
const RULE = /^[\s\u2500\u2501\u2550\u254C\u2504\u2508\u256D\u256E\u2570\u256F\u250C\u2510\u2514\u2518\u2502\u2503|-]*$/;
/** The glyphs that make a row the dialog's edge (not just a side bar). */
const EDGE = /[\u2500\u2501\u2550\u254C\u2504\u2508\u256D\u256E\u2570\u256F\u250C\u2510\u2514\u2518-]/;
/** A box's side bars │ ┃, taken off the start or the end of a row. */
const SIDE_START = /^\s*[\u2502\u2503]\s?/;
const SIDE_END = /\s?[\u2502\u2503]\s*$/;
const SHORTCUT = /\s*\((esc|[a-z])\)$/i;
const YES_NO = /^(.*?)\s*[([]\s*(y|yes)\s*\/\s*(n|no)\s*[)\]]\s*[:?]?\s*$/i;

interface Row {
  text: string;
  /** A rule or a box's top or bottom: the dialog's edge. */
  rule: boolean;
}

/** Box borders taken off each side (`│ text │`), rules and box edges marked. */
function rows(lines: readonly string[]): Row[] {
  return lines.map((raw) => {
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '') return { text: '', rule: false };
    if (RULE.test(line)) return { text: '', rule: EDGE.test(line) };
    return {
      text: line.replace(SIDE_START, '').replace(SIDE_END, '').replace(/\s+$/, ''),
      rule: false,
    };
  });
}

interface Option {
  row: number;
  number: number;
  indent: number;
  marked: boolean;
  label: string;
  shortcut: string | null;
  description: string[];
}

function parseOption(r: Row, row: number): Option | null {
  const m = OPTION.exec(r.text);
  if (!m) return null;
  const body = m[4]!;
  const hint = SHORTCUT.exec(body);
  return {
    row,
    number: Number(m[3]),
    indent: m[1]!.length + (m[2]?.length ?? 0),
    marked: m[2] !== undefined,
    label: clip(hint ? body.slice(0, hint.index) : body, MAX_LABEL_CHARS),
    shortcut: hint ? hint[1]!.toLowerCase() : null,
    description: [],
  };
}

/** Numbered options 1, 2, … close together, exactly one of them highlighted; the last such run. */
function findMenu(rs: Row[]): Option[] | null {
  let best: Option[] | null = null;
  let run: Option[] = [];
  const close = (): void => {
    if (run.length >= 2 && run.length <= MAX_CHOICES && run.filter((o) => o.marked).length === 1) best = run;
    run = [];
  };
  for (let i = 0; i < rs.length; i++) {
    const o = parseOption(rs[i]!, i);
    if (!o) {
      if (run.length && i - run[run.length - 1]!.row > MAX_ROWS_BETWEEN_OPTIONS) close();
      continue;
    }
    const prev = run[run.length - 1];
    if (prev && o.number === prev.number + 1) run.push(o);
    else {
      close();
      if (o.number === 1) run = [o];
    }
  }
  close();
  return best;
}

/** Lines right below an option, indented past its number, are its description. */
function describe(rs: Row[], menu: Option[]): number {
  let end = menu[menu.length - 1]!.row;
  menu.forEach((o, k) => {
    const stop = menu[k + 1]?.row ?? rs.length;
    for (let i = o.row + 1; i < stop; i++) {
      const r = rs[i]!;
      const indent = r.text.length - r.text.trimStart().length;
      if (!r.text || r.rule || indent <= o.indent - 2) break;
      o.description.push(r.text.trim());
      end = Math.max(end, i);
    }
  });
  return end;
}

/** The sentence holding the question mark, from a paragraph that may say more around it. */
function questionSentence(paragraph: string): string {
  const sentences = paragraph.split(/(?<=[.!?:)])\s+(?=[A-Z(])/);
  const q = sentences.find((s) => s.includes('?'));
  return (q ?? paragraph).trim();
}

/** The question above the menu and the context above it, within the dialog's edges. */
function questionAbove(rs: Row[], firstRow: number): { text: string; context: string } {
  const paragraphs: string[][] = [];
  let current: string[] = [];
  for (let i = firstRow - 1; i >= Math.max(0, firstRow - MAX_ROWS_ABOVE_MENU); i--) {
    const r = rs[i]!;
    if (r.rule) break;
    if (!r.text) {
      if (current.length) paragraphs.push(current);
      current = [];
      continue;
    }
    current.unshift(r.text.trim());
  }
  if (current.length) paragraphs.push(current);
  // paragraphs[0] is the nearest; the question is the nearest one asking, else the nearest one.
  let at = paragraphs.findIndex((p) => p.join(' ').includes('?'));
  if (at < 0) at = 0;
  const asked = paragraphs[at];
  if (!asked) return { text: '', context: '' };
  const context = paragraphs
    .slice(at + 1)
    .reverse()
    .flat()
    .slice(-MAX_CONTEXT_ROWS);
  return { text: questionSentence(asked.join(' ')), context: context.join('\n') };
}

/** The keys that choose option `index` of `menu` in this TUI. */
export function menuKeys(tui: QuestionTui, index: number, highlighted: number, shortcut: string | null): string[] {
  if (tui === 'codex' && shortcut) return [shortcut === 'esc' ? 'Escape' : shortcut];
  if ((tui === 'claude' || tui === 'gemini') && index < 9) return [String(index + 1)];
  const moves = index - highlighted;
  return [...Array<string>(Math.abs(moves)).fill(moves > 0 ? 'ArrowDown' : 'ArrowUp'), 'Enter'];
}

function yesNo(rs: Row[]): Question | null {
  let last = rs.length - 1;
  while (last >= 0 && !rs[last]!.text) last--;
  const m = last >= 0 ? YES_NO.exec(rs[last]!.text.trim()) : null;
  if (!m) return null;
  const text = m[1]!.trim() || (rs[last - 1]?.text.trim() ?? '');
  const yesDefault = m[2] === 'Y' || m[2] === 'YES';
  const noDefault = m[3] === 'N' || m[3] === 'NO';
  const choices: QuestionChoice[] = [
    { label: 'Yes', keys: ['y', 'Enter'], highlighted: yesDefault },
    { label: 'No', keys: ['n', 'Enter'], highlighted: noDefault },
  ];
  return makeQuestion(text || 'Yes or no?', '', choices, 'screen');
}

/** The question on this screen, or null. `tui` says how its options are chosen. */
export function questionFromScreen(lines: readonly string[], tui: QuestionTui = 'generic'): Question | null {
  const rs = rows(lines);
  const menu = findMenu(rs);
  if (menu) {
    const end = describe(rs, menu);
    const after = rs.slice(end + 1).filter((r) => r.text).length;
    if (after <= MAX_ROWS_AFTER_MENU) {
      const highlighted = menu.findIndex((o) => o.marked);
      const { text, context } = questionAbove(rs, menu[0]!.row);
      const choices = menu.map((o, k): QuestionChoice => ({
        label: o.label,
        ...(o.description.length ? { description: clip(o.description.join(' '), MAX_LABEL_CHARS) } : {}),
        keys: menuKeys(tui, k, highlighted, o.shortcut),
        highlighted: k === highlighted,
      }));
      return makeQuestion(text || 'Choose an option', context, choices, 'screen');
    }
  }
  return yesNo(rs);
}
