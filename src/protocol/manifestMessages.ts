// The words of manifest messages: JSON paths as `hooks.events[0].on`, values quoted and cut to
// one line, zod issues rewritten as "expected …, got …" with the field's own description, and
// "did you mean" for a misspelt key.
import * as z from 'zod';
import { ManifestSchema } from './manifestSchema';

/** One step of a JSON path: a property name or a list index. */
export type PathKey = string | number;

/** Reports one problem at a JSON path. */
export type Report = (path: PathKey[], message: string) => void;

/** Values quoted in messages are cut to this many characters so one line stays one line. */
const MAX_QUOTED_CHARS = 60;

export function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

export function describeIssue(issue: z.core.$ZodIssue, path: PathKey[], root: unknown): string {
  const got = valueAt(root, path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = typeWord(issue.expected);
      if (got.found === false) {
        const what = fieldDescription(path);
        return `missing; expected ${expected}${what ? `: ${what}` : ''}`;
      }
      return `expected ${expected}, got ${describeValue(got.value)}`;
    }
    case 'invalid_value':
      return `expected ${listChoices(issue.values)}, got ${describeValue(got.value)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `must have at least ${issue.minimum} ${Number(issue.minimum) === 1 ? 'entry' : 'entries'}`;
      return `must be at least ${issue.minimum}, got ${describeValue(got.value)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters, got ${typeof got.value === 'string' ? got.value.length : '?'}`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} entries, got ${Array.isArray(got.value) ? got.value.length : '?'}`;
      return `must be at most ${issue.maximum}, got ${describeValue(got.value)}`;
    case 'invalid_format':
    case 'custom':
      return `${issue.message}, got ${describeValue(got.value)}`;
    default:
      return issue.message;
  }
}

function typeWord(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    object: 'an object',
    array: 'a list',
  };
  return words[expected] ?? expected;
}

export function listChoices(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)));
  if (quoted.length <= 1) return quoted[0] ?? 'nothing';
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return String(value);
  return kindOf(value);
}

export function quote(s: string): string {
  const json = JSON.stringify(s);
  return json.length > MAX_QUOTED_CHARS ? `${json.slice(0, MAX_QUOTED_CHARS - 2)}…"` : json;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function formatSize(chars: number): string {
  if (chars >= 1_048_576) return `${(chars / 1_048_576).toFixed(1)} MB`;
  if (chars >= 1024) return `${(chars / 1024).toFixed(1)} KB`;
  return `${chars} bytes`;
}

function valueAt(root: unknown, path: readonly PathKey[]): { found: boolean; value?: unknown } {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return { found: false };
    cur = (cur as Record<PathKey, unknown>)[key];
  }
  return { found: cur !== undefined, value: cur };
}

/** The schema node at a path (through optionals and arrays), or undefined. */
function schemaAt(path: readonly PathKey[]): z.core.$ZodType | undefined {
  let node: z.core.$ZodType | undefined = ManifestSchema;
  for (const key of path) {
    node = unwrapOptional(node);
    if (!node) return undefined;
    const def = node._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType };
    if (def.type === 'object' && typeof key === 'string') node = def.shape?.[key];
    else if (def.type === 'array' && typeof key === 'number') node = def.element;
    else return undefined;
  }
  return node;
}

function unwrapOptional(node: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  while (node && (node._zod.def as { type: string }).type === 'optional') node = (node._zod.def as unknown as { innerType: z.core.$ZodType }).innerType;
  return node;
}

function fieldDescription(path: readonly PathKey[]): string | undefined {
  const node = schemaAt(path);
  const text = node ? (z.globalRegistry.get(node)?.description ?? z.globalRegistry.get(unwrapOptional(node) ?? node)?.description) : undefined;
  if (!text) return undefined;
  const sentence = text.split(/(?<=\.)\s+(?=[A-Z])|;\s/)[0]!.replace(/\.$/, '');
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/** " (did you mean "events"?)" when an unknown key is one or two edits from a known one. */
export function suggestKey(path: readonly PathKey[], key: string): string {
  const node = unwrapOptional(schemaAt(path));
  const shape = node ? (node._zod.def as { shape?: Record<string, unknown> }).shape : undefined;
  if (!shape || key.length > MAX_QUOTED_CHARS) return '';
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(shape)) {
    const d = editDistance(key.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best ? ` (did you mean "${best}"?)` : '';
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
