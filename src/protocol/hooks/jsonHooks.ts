// Install and uninstall our entries in a JSON (or JSONC) hook config, surgically: jsonc-parser
// parses, and jsonTextEdit inserts or deletes only the spans of our entries, so every byte the
// user wrote (comments, indentation, key order, unknown keys) survives. Install is idempotent; uninstall removes exactly the entries
// whose command carries the reporter marker. A file that does not parse is an error value.
import { findNodeAtLocation, parseTree, printParseErrorCode, type JSONPath, type Node, type ParseError } from 'jsonc-parser';
import { appendMember, applyEdit, detectStyle, removeMember, type TextStyle } from './jsonTextEdit';
import { isOurCommand } from './hookCommand';
import type { HookEventRule, JsonDialect } from './dialects';

export type HookEditResult =
  { ok: true; text: string; changed: boolean; /** No hook entries and nothing else of the user's is left. */ empty: boolean } | { ok: false; error: string };

/** One entry we want in the file: under `event`, optionally with a matcher, running `command`. */
export interface WantedEntry {
  rule: HookEventRule;
  command: string;
}

interface FoundEntry {
  event: string;
  matcher: string | undefined;
  command: string;
  /** Path of the element to delete: the group (nested, all ours) or the entry itself. */
  path: JSONPath;
}

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

/** A JSON(C) config's syntax tree, or why it cannot be edited (it must hold an object at the top). */
export function parseJsonConfig(text: string): { root: Node | undefined } | { error: string } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  if (errors.length) {
    const e = errors[0] as ParseError;
    const line = text.slice(0, e.offset).split('\n').length;
    return { error: `not valid JSON: ${printParseErrorCode(e.error)} at line ${line}` };
  }
  if (root && root.type !== 'object') return { error: `expected a JSON object at the top, found ${root.type}` };
  return { root };
}

function childValue(node: Node, key: string): Node | undefined {
  return findNodeAtLocation(node, [key]);
}

function stringAt(node: Node | undefined): string | undefined {
  return node && node.type === 'string' ? (node.value as string) : undefined;
}

/** Our entries in document order, and the shape problems that stop us editing. */
function findOurs(root: Node | undefined, dialect: JsonDialect): { found: FoundEntry[] } | { error: string } {
  const found: FoundEntry[] = [];
  const hooks = root && findNodeAtLocation(root, ['hooks']);
  if (!hooks) return { found };
  if (hooks.type !== 'object') return { error: `"hooks" is a ${hooks.type}, expected an object` };
  for (const prop of hooks.children ?? []) {
    const event = prop.children?.[0]?.value as string;
    const list = prop.children?.[1];
    if (!list || list.type !== 'array') continue; // not ours to judge; we never touch it
    (list.children ?? []).forEach((item, i) => {
      if (item.type !== 'object') return;
      if (dialect.shape === 'flat') {
        const command = stringAt(childValue(item, dialect.commandKey));
        if (isOurCommand(command)) found.push({ event, matcher: stringAt(childValue(item, 'matcher')), command: command as string, path: ['hooks', event, i] });
        return;
      }
      const inner = childValue(item, 'hooks');
      if (!inner || inner.type !== 'array') return;
      const entries = inner.children ?? [];
      const ours = entries.map((e) => e.type === 'object' && isOurCommand(stringAt(childValue(e, dialect.commandKey))));
      const matcher = stringAt(childValue(item, 'matcher'));
      const allOurs = ours.length > 0 && ours.every(Boolean);
      entries.forEach((e, j) => {
        if (!ours[j]) return;
        const command = stringAt(childValue(e, dialect.commandKey)) as string;
        found.push({ event, matcher, command, path: allOurs ? ['hooks', event, i] : ['hooks', event, i, 'hooks', j] });
      });
    });
  }
  return { found };
}

function entryValue(w: WantedEntry, dialect: JsonDialect): Record<string, unknown> {
  const hook = { ...dialect.entryExtra, [dialect.commandKey]: w.command };
  if (dialect.shape === 'flat') return w.rule.matcher !== undefined ? { ...hook, matcher: w.rule.matcher } : hook;
  return { ...(w.rule.matcher !== undefined ? { matcher: w.rule.matcher } : {}), hooks: [hook] };
}

const key = (event: string, matcher: string | undefined, command: string) => JSON.stringify([event, matcher ?? null, command]);

function isEmptyDocument(text: string, dialect: JsonDialect): boolean {
  const parsed = parseJsonConfig(text);
  if ('error' in parsed || !parsed.root) return true;
  const keys = (parsed.root.children ?? []).map((p) => p.children?.[0]?.value as string);
  return keys.every((k) => k in dialect.newFileRoot);
}

/** The container holding the member at `path`, and the member's index in it. */
function locate(root: Node, path: JSONPath): { container: Node; index: number } {
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  const container = parentPath.length ? findNodeAtLocation(root, parentPath) : root;
  if (!container) throw new Error(`no container at ${JSON.stringify(parentPath)}`);
  if (typeof last === 'number') return { container, index: last };
  const index = (container.children ?? []).findIndex((p) => p.children?.[0]?.value === last);
  if (index < 0) throw new Error(`no property ${JSON.stringify(last)} at ${JSON.stringify(parentPath)}`);
  return { container, index };
}

function removeAt(text: string, path: JSONPath): string {
  const root = parseTree(text, [], PARSE_OPTIONS) as Node;
  const { container, index } = locate(root, path);
  return applyEdit(text, removeMember(text, container, index));
}

/** Removes the member at `path` byte-exactly; with `prune`, also the containers that leaves empty. */
export function removeJsonMember(text: string, path: JSONPath, prune: boolean): string {
  const out = removeAt(text, path);
  return prune ? pruneEmpty(out, path) : out;
}

/**
 * Removes our entries. The event arrays and the "hooks" object that our removal leaves empty go
 * too (a file that had no hooks before install has none after uninstall); an empty one the user
 * kept on purpose goes with them, the one byte-level difference uninstall can make.
 */
function removeOurs(text: string, dialect: JsonDialect): HookEditResult {
  let current = text;
  let changed = false;
  // One removal per pass: offsets shift after each edit, so re-parse.
  for (;;) {
    const parsed = parseJsonConfig(current);
    if ('error' in parsed) return { ok: false, error: parsed.error };
    const ours = findOurs(parsed.root, dialect);
    if ('error' in ours) return { ok: false, error: ours.error };
    const last = ours.found[ours.found.length - 1];
    if (!last) break;
    current = removeAt(current, last.path);
    changed = true;
    current = pruneEmpty(current, last.path);
  }
  return { ok: true, text: current, changed, empty: isEmptyDocument(current, dialect) };
}

/** After removing the member at `removed`, drops the containers that removal left empty. */
function pruneEmpty(text: string, removed: JSONPath): string {
  let current = text;
  for (let depth = removed.length - 1; depth >= 1; depth--) {
    const path = removed.slice(0, depth);
    const root = parseTree(current, [], PARSE_OPTIONS);
    const node = root && findNodeAtLocation(root, path);
    if (!node || (node.type !== 'array' && node.type !== 'object') || (node.children ?? []).length > 0) return current;
    current = removeAt(current, path);
  }
  return current;
}

export function installJsonHooks(text: string | null, dialect: JsonDialect, wanted: readonly WantedEntry[]): HookEditResult {
  if (dialect.knownEvents) {
    const unknown = wanted.filter((w) => !dialect.knownEvents?.includes(w.rule.on)).map((w) => w.rule.on);
    if (unknown.length) {
      return {
        ok: false,
        error: `${dialect.id} does not know the event(s) ${unknown.join(', ')}; one unknown name voids its whole hooks file, so nothing was written`,
      };
    }
  }
  const fresh = text === null || text.trim() === '';
  const start = fresh ? '{}' : text;
  const parsed = parseJsonConfig(start);
  if ('error' in parsed) return { ok: false, error: parsed.error };
  const before = findOurs(parsed.root, dialect);
  if ('error' in before) return { ok: false, error: before.error };
  const have = before.found.map((f) => key(f.event, f.matcher, f.command)).sort();
  const want = wanted.map((w) => key(w.rule.on, w.rule.matcher, w.command)).sort();
  if (!fresh && have.length === want.length && have.every((k, i) => k === want[i])) {
    return { ok: true, text: start, changed: false, empty: isEmptyDocument(start, dialect) };
  }
  const style: TextStyle = fresh ? { unit: '  ', eol: '\n' } : detectStyle(start);
  const cleaned = removeOurs(start, dialect);
  if (!cleaned.ok) return cleaned;
  let out = cleaned.text;
  const rootOf = (t: string) => parseTree(t, [], PARSE_OPTIONS) as Node;
  if (fresh) {
    for (const [k, v] of Object.entries(dialect.newFileRoot)) out = applyEdit(out, appendMember(out, rootOf(out), k, v, style));
  }
  for (const w of wanted) {
    const root = rootOf(out);
    const hooks = findNodeAtLocation(root, ['hooks']);
    const list = hooks && findNodeAtLocation(root, ['hooks', w.rule.on]);
    if (list && list.type !== 'array') return { ok: false, error: `"hooks"."${w.rule.on}" is a ${list.type}, expected an array` };
    const value = entryValue(w, dialect);
    const edit = list
      ? appendMember(out, list, undefined, value, style)
      : hooks
        ? appendMember(out, hooks, w.rule.on, [value], style)
        : appendMember(out, root, 'hooks', { [w.rule.on]: [value] }, style);
    out = applyEdit(out, edit);
  }
  if (fresh) out += '\n';
  return { ok: true, text: out, changed: out !== text, empty: false };
}

export function uninstallJsonHooks(text: string | null, dialect: JsonDialect): HookEditResult {
  if (text === null || text.trim() === '') return { ok: true, text: text ?? '', changed: false, empty: true };
  const parsed = parseJsonConfig(text);
  if ('error' in parsed) return { ok: false, error: parsed.error };
  return removeOurs(text, dialect);
}

/** The commands of our entries, per event (for `termio hooks status`). */
export function listJsonHooks(
  text: string | null,
  dialect: JsonDialect,
): { ok: true; entries: { event: string; matcher?: string; command: string }[] } | { ok: false; error: string } {
  if (text === null || text.trim() === '') return { ok: true, entries: [] };
  const parsed = parseJsonConfig(text);
  if ('error' in parsed) return { ok: false, error: parsed.error };
  const ours = findOurs(parsed.root, dialect);
  if ('error' in ours) return { ok: false, error: ours.error };
  return { ok: true, entries: ours.found.map((f) => ({ event: f.event, ...(f.matcher !== undefined ? { matcher: f.matcher } : {}), command: f.command })) };
}
