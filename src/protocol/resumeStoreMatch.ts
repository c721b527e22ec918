// storeMatch rules of the pinned resume family: how a conversation's record is named inside the
// agent's store (`dir:{id}`, `file:{id}.jsonl`, `file:session-*-{id:8}.jsonl`). Parsing and
// name matching only; the host walks the folders. Pure: no I/O.
import { checkConversationId } from './resumePlan';

export type StoreEntryKind = 'dir' | 'file';

type Part = { lit: string } | { id: true; prefix?: number } | { star: true };

export interface StoreMatchRule {
  kind: StoreEntryKind;
  /** The name pattern: the last path component after the colon. */
  pattern: string;
  parts: Part[];
  /** Literal folders the entry sits in, outermost first ("file:chats/{id}.jsonl" → ["chats"]). */
  parents: string[];
}

export type StoreMatchError = { kind: 'storeMatchError'; message: string };

/**
 * Longest id prefix a rule may ask for with {id:N}; beyond this a prefix would be the whole id of
 * every real scheme (Gemini names its files after the first 8 characters of a UUID).
 */
const MAX_ID_PREFIX = 64;

/**
 * Parses `<dir|file>:<folders/><name pattern>`. The name pattern (the last component) holds `{id}`
 * or `{id:N}` (first N characters of the id) at least once, plus literal text and `*` (any run of
 * characters within the name); the folders before it are literal names the entry must sit in
 * (Qwen keeps `<project>/chats/<id>.jsonl`). Errors name the rule and what is expected.
 */
export function parseStoreMatch(rule: string): StoreMatchRule | StoreMatchError {
  const err = (message: string): StoreMatchError => ({ kind: 'storeMatchError', message: `storeMatch ${JSON.stringify(rule)}: ${message}` });
  const colon = rule.indexOf(':');
  if (colon < 0) return err('expected "dir:<pattern>" or "file:<pattern>"');
  const kind = rule.slice(0, colon);
  if (kind !== 'dir' && kind !== 'file') return err(`expected the kind "dir" or "file", got ${JSON.stringify(kind)}`);
  const segments = rule.slice(colon + 1).split('/');
  const pattern = segments.pop() ?? '';
  const parents = segments;
  if (pattern.includes('\\') || parents.some((p) => p.includes('\\'))) return err('the pattern must not contain "\\"');
  if ([pattern, ...parents].some((p) => p === '' || p === '.' || p === '..')) return err('no folder or name may be empty, "." or ".."');
  if (parents.some((p) => /[{}*]/.test(p))) return err('the folders before the name are literal (no {id} or *)');
  const parts: Part[] = [];
  let hasId = false;
  const re = /\{id(?::(\d+))?\}|\*|\{[^}]*\}/g;
  let last = 0;
  for (const m of pattern.matchAll(re)) {
    if (m.index > last) parts.push({ lit: pattern.slice(last, m.index) });
    last = m.index + m[0].length;
    if (m[0] === '*') {
      if (parts.at(-1) && 'star' in (parts.at(-1) as Part)) continue;
      parts.push({ star: true });
    } else if (m[0].startsWith('{id')) {
      hasId = true;
      if (m[1] === undefined) parts.push({ id: true });
      else {
        const n = Number(m[1]);
        if (n < 1 || n > MAX_ID_PREFIX) return err(`{id:N} needs 1 ≤ N ≤ ${MAX_ID_PREFIX}, got ${m[1]}`);
        parts.push({ id: true, prefix: n });
      }
    } else {
      return err(`unknown placeholder ${m[0]} (only {id} and {id:N})`);
    }
  }
  if (last < pattern.length) parts.push({ lit: pattern.slice(last) });
  if (!hasId) return err('the pattern must contain {id}');
  return { kind, pattern, parts, parents };
}

export interface StoreMatcher {
  kind: StoreEntryKind;
  /** Literal folders the entry must sit in, outermost first; the host checks them on the path. */
  parents: string[];
  /** The one name that matches when the pattern has no `*`, so the host can stat it directly. */
  exactName: string | null;
  test(name: string): boolean;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A matcher for one id. An unsafe id ('/', '..', control characters, …) is an error value: it
 * never becomes part of a name, so it can never reach outside the store root.
 */
export function storeMatcher(rule: StoreMatchRule, id: string): StoreMatcher | StoreMatchError {
  const bad = checkConversationId(id);
  if (bad) return { kind: 'storeMatchError', message: `storeMatch ${JSON.stringify(`${rule.kind}:${rule.pattern}`)}: ${bad}` };
  const idText = (p: { prefix?: number }) => (p.prefix === undefined ? id : id.slice(0, p.prefix));
  const hasStar = rule.parts.some((p) => 'star' in p);
  const source = rule.parts.map((p) => ('lit' in p ? escapeRe(p.lit) : 'star' in p ? '.*' : escapeRe(idText(p)))).join('');
  const re = new RegExp(`^${source}$`, 'su');
  const exactName = hasStar ? null : rule.parts.map((p) => ('lit' in p ? p.lit : 'id' in p ? idText(p) : '')).join('');
  return {
    kind: rule.kind,
    parents: rule.parents,
    exactName,
    test: (name: string) => name !== '.' && name !== '..' && re.test(name),
  };
}
