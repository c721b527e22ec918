// A question read off the screen, for any TUI, by the shape of its menu rather than by known
// layouts: a block of option lines, exactly one of them behind a pointer (❯ › > ▶ ● …, the option
// Return would choose), numbered (`1. Yes`, `2) No`) or not, an option's label possibly wrapped
// onto the next line, its description below it; the question or title above (maybe inside a box
// drawn with ─│╭╮), a hint below ("Enter to confirm · Esc to cancel"). Numbered options are chosen
// by their digit where the TUI takes one, the others by arrows from the highlighted one and Return.
// A `(y/n)` prompt on the last line is a question too. Pure: the screen arrives as text rows.
import { clip, makeQuestion, MAX_CHOICES, MAX_LABEL_CHARS, type Question, type QuestionChoice, type QuestionTui } from './question';

/** A menu is live only near the bottom of the screen: past its options, the hints and the box's
 *  bottom take a few rows (Gemini's sign-in dialog shows six); a list with more output below it
 *  is something the agent printed, not a question waiting. */
const MAX_ROWS_AFTER_MENU = 7;
/** How far above the menu the question and its context are looked for (a narrow window wraps
 *  Claude Code's folder-trust text onto fourteen rows). */
const MAX_ROWS_ABOVE_MENU = 20;
/** Context lines kept (a command, its description, a folder). */
const MAX_CONTEXT_ROWS = 6;
/** A row this close to its right edge was full: the TUI wrapped what followed onto the next row. */
const WRAP_SLACK = 3;

// The screen's glyphs are written as \u escapes: a bundled process keeps its source in memory,
// and one non-ASCII character makes all of it two bytes a character (scripts/bundle.mjs).
/** The highlight's pointer: ❯ › > ▶ ► → ▸ ● ◉ ➜ ➤. */
const POINTER = '[\u276F\u203A>\u25B6\u25BA\u2192\u25B8\u25CF\u25C9\u279C\u27A4]';
/** A row behind a pointer: its indent, the pointer and what follows it. */
const POINTED = new RegExp(`^(\\s*)${POINTER}(\\s+)(\\S.*)$`);
/** A row that starts with a pointer, with or without text: a prompt waiting for input. */
const PROMPT_ROW = new RegExp(`^\\s*${POINTER}(\\s|$)`);
/** A prompt sits at the screen's left, at most inside a box's margin: a mark further right is a
 *  status line's (Continue's "◉ Continue CLI" at the right under its question box). */
const MAX_PROMPT_INDENT = 8;
/** A shell prompt on the last row ("$ ", "# ", "% "). */
const SHELL_PROMPT = /(^|\s)[$#%]\s*$/;
/** An option's number: `1.` or `1)`. */
const NUMBER = /^(\d{1,2})[.)]\s+(?=\S)/;
/** An option's label starts with a letter, a digit or an opening mark; a tree glyph (⎿), a
 *  bullet or a box-drawing glyph starts output, not an option. */
const LABEL_START = /^[\p{L}\p{N}("'`[/~.]/u;
/** Rows drawing a dialog's edge: the solid rules ─ ━ ═ and the corners ╭ ╮ ╰ ╯ ┌ ┐ └ ┘. */
const EDGE = /^[\s\u2500\u2501\u2550\u256D\u256E\u2570\u256F\u250C\u2510\u2514\u2518\u2502\u2503]*$/;
/** Rows dividing a dialog inside: the dashed rules ╌ ┄ ┈ ╍ ┅ ┉ and an ASCII rule of dashes. */
const DIVIDER = /^[\s\u254C\u2504\u2508\u254D\u2505\u2509-]*[\u254C\u2504\u2508\u254D\u2505\u2509-]{3}[\s\u254C\u2504\u2508\u254D\u2505\u2509-]*$/;
/** A box's side bars │ ┃ at the start or the end of a row. */
const SIDE_START = /^(\s*)[\u2502\u2503]/;
const SIDE_END = /[\u2502\u2503]\s*$/;
const SHORTCUT = /\s*\((esc|[a-z])\)$/i;
const YES_NO = /^(.*?)\s*[([]\s*(y|yes)\s*\/\s*(n|no)\s*[)\]]\s*[:?]?\s*$/i;
/** A menu's own hint: "Enter to confirm", "Press enter to continue", "↑/↓ to navigate", "Esc to
 *  cancel", "(Use Enter to select)". Not "esc to interrupt", which a working agent shows. */
const MENU_HINT =
  /\b(enter|return|space)\b[^\n]{0,12}\bto (confirm|select|choose|continue|submit|accept)\b|[\u2191\u2193]|\barrow keys\b|\besc(ape)? to (cancel|go back|exit|close|skip)\b/i;

interface Row {
  /** The text, a box's side bars blanked (columns kept) and the end trimmed; '' for a blank row or a rule. */
  text: string;
  /** A solid rule or a box's top or bottom (the dialog's edge), a dashed divider inside it, or neither. */
  rule: 'edge' | 'divider' | null;
  /** The last column the TUI writes to on this row before wrapping: a box's inside, else the screen's width. */
  limit: number;
  /** The limit was drawn (a box's side, a rule across the screen), not guessed from the longest row. */
  drawn: boolean;
}

/** A row with its box's side bars blanked (columns kept), then those of a box drawn inside that
 *  one (Gemini CLI shows the command in one); `right` is where the innermost right bar stood. */
function peel(line: string): { text: string; right: number | null; depth: number } {
  let text = line;
  let right: number | null = null;
  let depth = 0;
  for (; depth < 2; depth++) {
    const l = SIDE_START.exec(text);
    const r = SIDE_END.exec(text);
    if (depth === 0 ? !l && !r : !(l && r)) break;
    if (r) text = text.slice(0, (right = r.index));
    if (l) text = text.replace(SIDE_START, (_, indent: string) => `${indent} `);
    text = text.trimEnd();
  }
  return { text, right, depth };
}

/** Box borders blanked off each side (`│ text │`), rules and box edges marked: a box's top and
 *  bottom are its edge, a rule or a box inside it only divides it. The rows come with their ends
 *  trimmed, so the screen's width is a rule's, else the longest row's. */
function rows(lines: readonly string[]): Row[] {
  const trimmed = lines.map((l) => l.trimEnd());
  const longest = Math.max(0, ...trimmed.map((l) => l.length));
  // A rule drawn across the screen is as long as its longest row; a shorter one ("---") says nothing.
  const ruled = trimmed.some((l) => l.length === longest && (EDGE.test(l) || DIVIDER.test(l)));
  return trimmed.map((line) => {
    const { text, right, depth } = peel(line);
    const plain = { text: '', rule: null, limit: right === null ? longest : right - 1, drawn: right !== null || ruled };
    if (text.trim() === '') return plain;
    if (EDGE.test(text) && /[^\s\u2502\u2503]/.test(text)) return { ...plain, rule: depth === 0 ? 'edge' : 'divider' };
    if (DIVIDER.test(text)) return { ...plain, rule: 'divider' };
    return { ...plain, text };
  });
}

const indentOf = (text: string): number => text.length - text.trimStart().length;

/** Whether the TUI wrapped row `r` onto the next row: the next row's first word would not have
 *  fitted. `drawn`: only where the row's limit was drawn, not guessed (a wrong guess would merge
 *  two options into one). */
function wrapped(r: Row, next: Row, drawn = false): boolean {
  const word = next.text.trim().split(/\s/, 1)[0] ?? '';
  return (r.drawn || !drawn) && r.text.length > 0 && r.text.length + 1 + word.length > r.limit - WRAP_SLACK;
}

/** One row read as a possible option: where its number or label starts, behind a pointer or not. */
interface Line {
  col: number;
  pointed: boolean;
  number: number | null;
  label: string;
}

function lineOf(r: Row): Line | null {
  if (!r.text) return null;
  const p = POINTED.exec(r.text);
  const col = p ? p[1]!.length + 1 + p[2]!.length : indentOf(r.text);
  const rest = p ? p[3]! : r.text.trim();
  const n = NUMBER.exec(rest);
  const label = n ? rest.slice(n[0].length) : rest;
  return LABEL_START.test(label) ? { col, pointed: p !== null, number: n ? Number(n[1]) : null, label } : null;
}

interface Option {
  number: number | null;
  pointed: boolean;
  label: string[];
  description: string[];
  /** The option's last row: the one its label or description may wrap from. */
  last: number;
}

interface Menu {
  options: Option[];
  /** The first and the last row of the block. */
  start: number;
  end: number;
}

/** Whether row i starts one of the options of the menu around the highlighted `at`: numbered
 *  like it, in its column (a number within one column of it: Copilot CLI shifts a wrapped option
 *  by one), and, without numbers, not carrying on a row above that was full. */
function isOption(rs: Row[], i: number, at: Line): boolean {
  const l = lineOf(rs[i]!);
  if (!l || (l.number !== null) !== (at.number !== null)) return false;
  if (at.number !== null) return Math.abs(l.col - at.col) <= 1;
  return l.col === at.col && (l.pointed || i === 0 || !wrapped(rs[i - 1]!, rs[i]!, true));
}

/** Whether row i carries on the option above it: indented past the options' column, or the row
 *  above it was full (where its limit is drawn). */
function continues(rs: Row[], i: number, at: Line): boolean {
  const r = rs[i]!;
  return !PROMPT_ROW.test(r.text) && (indentOf(r.text) > at.col || (i > 0 && wrapped(rs[i - 1]!, r, true)));
}

/** Whether a rule between option rows at row `i` belongs to the menu: in a numbered menu, when
 *  the next row past it (in `step` direction) is another option (Claude Code draws one before its
 *  last AskUserQuestion option); a menu without numbers ends at its dialog's rules. */
function ruleInMenu(rs: Row[], i: number, at: Line, step: 1 | -1): boolean {
  if (at.number === null) return false;
  let j = i + step;
  while (j >= 0 && j < rs.length && !rs[j]!.text) j += step;
  return j >= 0 && j < rs.length && isOption(rs, j, at);
}

/** The first or last row of the menu around the highlighted row `at` (on `row`), walking from it
 *  in `step` direction: its options, their continuation rows (indented past the options' column),
 *  the blanks between them. Upward, the block starts at its first option. */
function extent(rs: Row[], row: number, at: Line, step: 1 | -1): number {
  let edge = row;
  for (let i = row + step; i >= 0 && i < rs.length; i += step) {
    const r = rs[i]!;
    if (!r.text) {
      if (r.rule && !ruleInMenu(rs, i, at, step)) break;
      continue;
    }
    const option = isOption(rs, i, at);
    if (!option && !continues(rs, i, at)) break;
    if (option || step === 1) edge = i;
  }
  return edge;
}

/** The menu whose highlighted option is on row `row`, or null when the block there is no menu. */
function menuAt(rs: Row[], row: number): Menu | null {
  const at = lineOf(rs[row]!);
  if (!at?.pointed) return null;
  const start = extent(rs, row, at, -1);
  const end = extent(rs, row, at, 1);
  const options: Option[] = [];
  for (let i = start; i <= end; i++) {
    const r = rs[i]!;
    if (!r.text) continue;
    const current = options[options.length - 1];
    if (isOption(rs, i, at)) {
      const l = lineOf(r)!;
      if (l.pointed && i !== row) return null;
      options.push({ number: l.number, pointed: l.pointed, label: [l.label], description: [], last: i });
    } else if (current && continues(rs, i, at)) {
      // The row above was full: this one carries on its label (or its description).
      const full = current.last === i - 1 && wrapped(rs[i - 1]!, r);
      (full && current.description.length === 0 ? current.label : current.description).push(r.text.trim());
      current.last = i;
    } else return null;
  }
  return validMenu(options) ? { options, start, end } : null;
}

/** Two to twelve options, one highlighted; numbered ones carry each number from 1 once. */
function validMenu(options: Option[]): boolean {
  if (options.length < 2 || options.length > MAX_CHOICES || options.filter((o) => o.pointed).length !== 1) return false;
  if (options[0]!.number === null) return true;
  const numbers = new Set(options.map((o) => o.number));
  return numbers.size === options.length && options.every((o) => o.number !== null && o.number <= options.length);
}

/** What follows the menu makes it a question waiting: a few rows at most, no prompt taking input
 *  below it (a composer, a shell), and for options without numbers, the menu's own hint (below
 *  it, or on the question's row as Inquirer puts it: "? Pick one: (Use arrow keys)"), or a
 *  question above it with nothing below it in its dialog (a status line under the dialog's bottom
 *  edge, as Continue's CLI shows, is the TUI's, not the dialog's). */
function waiting(rs: Row[], menu: Menu, asks: boolean): boolean {
  const below = rs.slice(menu.end + 1);
  const after = below.filter((r) => r.text);
  if (after.length > MAX_ROWS_AFTER_MENU || after.some((r) => PROMPT_ROW.test(r.text) && indentOf(r.text) <= MAX_PROMPT_INDENT)) return false;
  const lastRow = after[after.length - 1];
  if (lastRow && SHELL_PROMPT.test(lastRow.text)) return false;
  if (menu.options[0]!.number !== null) return true;
  const above = rs.slice(Math.max(0, menu.start - 2), menu.start);
  if ([...above, ...after].some((r) => MENU_HINT.test(r.text))) return true;
  const edge = below.findIndex((r) => r.rule === 'edge');
  return asks && (edge < 0 ? below : below.slice(0, edge)).every((r) => !r.text);
}

/** The lines of a paragraph with the TUI's wrapping undone. */
function unwrap(paragraph: Row[]): string[] {
  const out: string[] = [];
  paragraph.forEach((r, k) => {
    const prev = paragraph[k - 1];
    if (prev && out.length && wrapped(prev, r)) out[out.length - 1] += ` ${r.text.trim()}`;
    else out.push(r.text.trim());
  });
  return out;
}

/** Whether a sentence asks: a letter before a question mark. Not the regex /\p{L}[^?]*\?/u,
 *  which tries every letter of a sentence with no question mark to its end: quadratic in its
 *  length, and a screen read for questions ten times a second while an agent streams a long
 *  numbered list (which looks like a menu) spent most of its time there. */
function asks(sentence: string): boolean {
  const last = sentence.lastIndexOf('?');
  return last > 0 && /\p{L}/u.test(sentence.slice(0, last));
}

/** The sentence holding the question mark, from a paragraph that may say more around it. */
function questionSentence(paragraph: string): string {
  const sentences = paragraph.split(/(?<=[.!?:)])\s+(?=[A-Z(])/);
  const q = sentences.find(asks);
  return (q ?? paragraph).trim();
}

/** The question above the menu and the context above it, within the dialog's edges (a divider
 *  inside the dialog only separates paragraphs) and below the prompt the user last typed at. */
function questionAbove(rs: Row[], firstRow: number): { text: string; context: string } {
  const paragraphs: Row[][] = [];
  let current: Row[] = [];
  for (let i = firstRow - 1; i >= Math.max(0, firstRow - MAX_ROWS_ABOVE_MENU); i--) {
    const r = rs[i]!;
    if (r.rule === 'edge' || PROMPT_ROW.test(r.text)) break;
    if (!r.text) {
      if (current.length) paragraphs.push(current);
      current = [];
      continue;
    }
    current.unshift(r);
  }
  if (current.length) paragraphs.push(current);
  // paragraphs[0] is the nearest; the question is the nearest one asking, else the nearest one.
  const joined = paragraphs.map((p) => unwrap(p).join(' '));
  let at = joined.findIndex((p) => p.includes('?'));
  if (at < 0) at = 0;
  if (joined[at] === undefined) return { text: '', context: '' };
  const context = paragraphs
    .slice(at + 1)
    .reverse()
    .flatMap(unwrap)
    .slice(-MAX_CONTEXT_ROWS);
  return { text: questionSentence(joined[at]!), context: context.join('\n') };
}

/**
 * The keys that choose option `index` of a menu whose highlighted option is `highlighted`: its
 * shortcut letter in Codex; its digit in Claude Code and Gemini CLI when the option shows one
 * (`number`, null when the options are not numbered); else the arrows from the highlighted one, then Return.
 */
function menuKeys(tui: QuestionTui, index: number, highlighted: number, shortcut: string | null, number: number | null): string[] {
  if (tui === 'codex' && shortcut) return [shortcut === 'esc' ? 'Escape' : shortcut];
  if ((tui === 'claude' || tui === 'gemini') && number !== null && number <= 9) return [String(number)];
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

function choicesOf(menu: Menu, tui: QuestionTui): QuestionChoice[] {
  const highlighted = menu.options.findIndex((o) => o.pointed);
  return menu.options.map((o, k): QuestionChoice => {
    const body = o.label.join(' ');
    const hint = SHORTCUT.exec(body);
    return {
      label: clip(hint ? body.slice(0, hint.index) : body, MAX_LABEL_CHARS),
      description: o.description.length ? clip(o.description.join(' '), MAX_LABEL_CHARS) : undefined,
      keys: menuKeys(tui, k, highlighted, hint ? hint[1]!.toLowerCase() : null, o.number),
      highlighted: k === highlighted,
    };
  });
}

/** The question on this screen, or null. `tui` says how its options are chosen. The lowest menu
 *  on the screen is the live one: menus answered earlier may still show above it. */
export function questionFromScreen(lines: readonly string[], tui: QuestionTui = 'generic'): Question | null {
  const rs = rows(lines);
  for (let row = rs.length - 1; row >= 0; row--) {
    const menu = menuAt(rs, row);
    if (!menu) continue;
    const { text, context } = questionAbove(rs, menu.start);
    if (!waiting(rs, menu, text.endsWith('?'))) continue;
    return makeQuestion(text || 'Choose an option', context, choicesOf(menu, tui), 'screen');
  }
  return yesNo(rs);
}
