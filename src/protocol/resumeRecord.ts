// Reading a discovered-family session record (ATP "Resume", discover): the first line of a jsonl
// log or a whole json file, and the key paths to the conversation id and working directory.
// Pure: the host reads a bounded head of the file and passes the text here.
import { checkConversationId, type DiscoverInput } from './resumePlan';

export interface DiscoveredRecord {
  id: string;
  cwd: string;
}

export type RecordProblem =
  /** jsonl whose first line is not finished yet: read again when the file changes. */
  | { kind: 'incomplete'; message: string }
  | { kind: 'malformed'; message: string }
  | { kind: 'missingKey'; message: string }
  | { kind: 'unsafeId'; message: string };

export type ParsedRecord = ({ ok: true } & DiscoveredRecord) | ({ ok: false } & RecordProblem);

/**
 * Follows a dot-separated key path ("payload.id") through objects (and arrays by index).
 * Returns undefined when any step is missing.
 */
export function readKeyPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * Parses a record's text. For jsonl only the first line counts (the rest is the transcript);
 * a first line without its newline that does not parse yet is 'incomplete'. The id must be a safe
 * conversation id and the cwd a non-empty string.
 */
export function parseDiscoveredRecord(text: string, spec: Pick<DiscoverInput, 'format' | 'id' | 'cwd'>): ParsedRecord {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let json: string;
  let complete = true;
  if (spec.format === 'jsonl') {
    const nl = body.indexOf('\n');
    complete = nl >= 0;
    json = (nl >= 0 ? body.slice(0, nl) : body).replace(/\r$/, '');
  } else {
    json = body;
  }
  if (json.trim() === '') {
    return complete && spec.format === 'jsonl'
      ? { ok: false, kind: 'malformed', message: 'the first line is empty' }
      : { ok: false, kind: spec.format === 'jsonl' ? 'incomplete' : 'malformed', message: 'the record is empty' };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    if (!complete) return { ok: false, kind: 'incomplete', message: 'the first line is not finished' };
    return { ok: false, kind: 'malformed', message: `not JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, kind: 'malformed', message: 'expected a JSON object' };
  }
  const id = readKeyPath(value, spec.id);
  const cwd = readKeyPath(value, spec.cwd);
  if (typeof id !== 'string') return { ok: false, kind: 'missingKey', message: `${spec.id}: expected a string id, got ${describe(id)}` };
  if (typeof cwd !== 'string' || cwd === '') return { ok: false, kind: 'missingKey', message: `${spec.cwd}: expected a directory path, got ${describe(cwd)}` };
  const bad = checkConversationId(id);
  if (bad) return { ok: false, kind: 'unsafeId', message: `${spec.id}: ${bad}` };
  return { ok: true, id, cwd };
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  return Array.isArray(v) ? 'an array' : typeof v;
}
