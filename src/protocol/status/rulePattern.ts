// How a manifest's status pattern (`titleStatus`, `status`) is run. The text it reads is written
// by the program in the tab (its title, its screen), and the host that runs it serves every
// session: on a backtracking engine a pattern such as "^(a|a)+$" or "^(a+)+$" takes time
// exponential in the text, and one such title would hold the host for seconds or hours.
//
// So patterns run on RE2's automaton (re2js, plain JavaScript, no native build): a match costs at
// most the pattern's size times the text's, whatever the pattern. The syntax is JavaScript's,
// less what needs backtracking (lookahead, lookbehind, backreferences), which is refused when the
// pattern is compiled. The text is clipped too, so that bound stays small.
import { RE2JS } from 're2js';

/** A rule sees at most this much text: the last rows of a very large screen, or a title's start. */
export const MAX_RULE_TEXT_CHARS = 8 * 1024;

export interface RulePattern {
  readonly source: string;
  /** How many capture groups it has. */
  readonly groups: number;
  /** Whether it matches the part of a screen or title a rule reads (clipForRules). */
  test(text: string): boolean;
  /** Whether it matches anywhere in `text`, which the caller has bounded (a program's answer to
   *  --help, whose first lines say what it is, would lose them to the screen's clipping). */
  testAll(text: string): boolean;
  /** The first match's text (its first capture group when the pattern has one), or null. */
  find(text: string): string | null;
}

/**
 * Compiles a pattern as the status engine runs it ("m": ^ and $ anchor at each screen row).
 * Throws an Error whose message says what is wrong with the pattern.
 */
export function compileRulePattern(source: string): RulePattern {
  let translated: string;
  let re: ReturnType<typeof RE2JS.compile>;
  try {
    // JavaScript syntax (\uXXXX, named groups, …) in, RE2's out.
    translated = RE2JS.translateRegExp(source);
    re = RE2JS.compile(translated, RE2JS.MULTILINE);
  } catch (err) {
    throw new Error(describeRe2Error(source, err));
  }
  return {
    source,
    groups: re.groupCount(),
    test: (text) => re.matcher(clipForRules(text)).find(),
    testAll: (text) => re.matcher(text).find(),
    find: (text) => {
      const m = re.matcher(clipForRules(text));
      if (!m.find()) return null;
      return (re.groupCount() > 0 ? m.group(1) : null) ?? m.group() ?? '';
    },
  };
}

/** The part of `text` a rule reads: all of it when short, else the last whole rows within the cap. */
export function clipForRules(text: string): string {
  if (text.length <= MAX_RULE_TEXT_CHARS) return text;
  const tail = text.slice(text.length - MAX_RULE_TEXT_CHARS);
  const row = tail.indexOf('\n');
  // One long line (a title): its start, where anchored rules look.
  return row === -1 ? text.slice(0, MAX_RULE_TEXT_CHARS) : tail.slice(row + 1);
}

function describeRe2Error(source: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/unsupported Perl syntax: `\(\?[=!<]/.test(message) || /invalid escape sequence: `\\[1-9k]/.test(message))
    return `${message.replace(/^error parsing regexp: /, '')} (lookaround and backreferences are not supported: status patterns run in linear time)`;
  try {
    new RegExp(source, 'm');
  } catch (jsErr) {
    // JavaScript's own wording names the problem best when the pattern is not a regex at all.
    return (jsErr as Error).message.replace(`Invalid regular expression: /${source}/m: `, '');
  }
  return message.replace(/^error parsing regexp: /, '');
}

/**
 * The first group repeated without bound around something that itself repeats without bound
 * ("(a+)+", "(\\d*x)*", "(?:a{2,})+"),
 * or null. On a backtracking engine such a pattern can take exponential time on a near miss;
 * Termio runs patterns in linear time, but a manifest is meant to work in any ATP host.
 */
export function nestedQuantifier(source: string): string | null {
  // Each open group: where it starts, and whether something inside it repeats without bound.
  const open: Array<{ start: number; repeats: boolean }> = [];
  let top = { start: 0, repeats: false };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      i += 2;
      if (unboundedRepeatAt(source, i)) top.repeats = true;
      continue;
    }
    if (c === '[') {
      // A character class: skip to its closing ']' (']' right after '[' or '[^' is literal).
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
      if (unboundedRepeatAt(source, i)) top.repeats = true;
      continue;
    }
    if (c === '(') {
      open.push(top);
      top = { start: i, repeats: false };
      i++;
      continue;
    }
    if (c === ')' && open.length) {
      const inner = top;
      top = open.pop()!;
      i++;
      if (unboundedRepeatAt(source, i)) {
        if (inner.repeats) return source.slice(inner.start, i + repeatLength(source, i));
        top.repeats = true;
      } else if (inner.repeats) {
        top.repeats = true;
      }
      continue;
    }
    i++;
    if (unboundedRepeatAt(source, i)) top.repeats = true;
  }
  return null;
}

/** Whether a quantifier without an upper bound (+, *, {n,}) starts at `i`. */
function unboundedRepeatAt(source: string, i: number): boolean {
  const c = source[i];
  return c === '+' || c === '*' || (c === '{' && /^\{\d+,\}/.test(source.slice(i, i + 24)));
}

function repeatLength(source: string, i: number): number {
  if (source[i] !== '{') return 1;
  return source.indexOf('}', i) - i + 1;
}
