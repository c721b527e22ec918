// Our hook entries in a TOML config (Codex's config.toml form) as one marked block at the end of
// the file, written and removed as text: the user's bytes outside the block are never touched.
// Purely textual on purpose (src/protocol has no TOML parser): the host re-parses the result
// with smol-toml before writing it, and refuses a file that did not parse to begin with.
import type { WantedEntry } from './jsonHooks';

export const TOML_BLOCK_START = '# >>> termio hooks: written by `termio hooks install`, removed by `termio hooks uninstall` >>>';
/** Same block, for a file that lacked a final newline: uninstall then takes the added one back. */
export const TOML_BLOCK_START_ADDED_EOL = '# >>> termio hooks (+eol): written by `termio hooks install`, removed by `termio hooks uninstall` >>>';
export const TOML_BLOCK_END = '# <<< termio hooks <<<';

export type TomlEditResult = { ok: true; text: string; changed: boolean } | { ok: false; error: string };

/** A TOML basic string: JSON's string escapes are a subset TOML accepts. */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

/**
 * codex: `[[hooks.<Event>]]` tables, each holding `[[hooks.<Event>.hooks]]` commands (Codex's form).
 * kimi:  flat `[[hooks]]` tables of exactly event, matcher, command and timeout (Kimi Code refuses
 *        the whole file on any other field, so nothing else is written).
 */
export type TomlHookShape = 'codex' | 'kimi';

/** Seconds Kimi Code gives our hook (its range is 1-600); the reporter gives up long before. */
const KIMI_HOOK_TIMEOUT_SEC = 5;

function renderBlock(wanted: readonly WantedEntry[], eol: string, addedEol: boolean, shape: TomlHookShape): string {
  const lines = [addedEol ? TOML_BLOCK_START_ADDED_EOL : TOML_BLOCK_START];
  for (const w of wanted) {
    if (shape === 'kimi') {
      lines.push('[[hooks]]', `event = ${tomlString(w.rule.on)}`);
      if (w.rule.matcher !== undefined) lines.push(`matcher = ${tomlString(w.rule.matcher)}`);
      lines.push(`command = ${tomlString(w.command)}`, `timeout = ${KIMI_HOOK_TIMEOUT_SEC}`);
      continue;
    }
    lines.push(`[[hooks.${tomlString(w.rule.on)}]]`);
    if (w.rule.matcher !== undefined) lines.push(`matcher = ${tomlString(w.rule.matcher)}`);
    lines.push(`[[hooks.${tomlString(w.rule.on)}.hooks]]`, 'type = "command"', `command = ${tomlString(w.command)}`);
  }
  lines.push(TOML_BLOCK_END);
  return lines.join(eol) + eol;
}

interface BlockSpan {
  /** Offset where the block (including the blank separator line we add) begins. */
  start: number;
  end: number;
  addedEol: boolean;
}

function findBlock(text: string): BlockSpan | { error: string } | null {
  const a = text.indexOf(TOML_BLOCK_START);
  const b = text.indexOf(TOML_BLOCK_START_ADDED_EOL);
  const startAt = a >= 0 ? a : b;
  if (startAt < 0) return null;
  const endAt = text.indexOf(TOML_BLOCK_END, startAt);
  if (endAt < 0) return { error: `the termio hooks block has a start marker but no end marker ('${TOML_BLOCK_END}')` };
  let end = endAt + TOML_BLOCK_END.length;
  if (text.startsWith('\r\n', end)) end += 2;
  else if (text.startsWith('\n', end)) end += 1;
  // The blank separator line we put before the block (and the final newline we had to add to
  // the user's last line) belong to it.
  const addedEol = startAt === b;
  let start = startAt;
  const dropEol = () => {
    if (text.endsWith('\r\n', start)) start -= 2;
    else if (text.endsWith('\n', start)) start -= 1;
  };
  if (start > 0) {
    dropEol();
    if (addedEol) dropEol();
  }
  return { start, end, addedEol };
}

export function installTomlHooks(text: string | null, wanted: readonly WantedEntry[], shape: TomlHookShape = 'codex'): TomlEditResult {
  const original = text ?? '';
  const removed = uninstallTomlHooks(original);
  if (!removed.ok) return removed;
  const base = removed.text;
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const addedEol = base.length > 0 && !base.endsWith('\n');
  const prefix = base.length === 0 ? '' : `${base}${addedEol ? eol : ''}${eol}`;
  const out = prefix + renderBlock(wanted, eol, addedEol, shape);
  return { ok: true, text: out, changed: out !== original };
}

export function uninstallTomlHooks(text: string | null): TomlEditResult {
  const original = text ?? '';
  const span = findBlock(original);
  if (span === null) return { ok: true, text: original, changed: false };
  if ('error' in span) return { ok: false, error: span.error };
  const out = original.slice(0, span.start) + original.slice(span.end);
  return { ok: true, text: out, changed: true };
}

/** Our block's text, or null (for `termio hooks status`). */
export function tomlHooksBlock(text: string | null): string | null {
  const span = findBlock(text ?? '');
  return span && !('error' in span) ? (text as string).slice(span.start, span.end) : null;
}
