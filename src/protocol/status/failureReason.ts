// Why a session stopped, in words a person acts on: an agent's failure hook (manifest hook event
// `failure`, a key path into the payload) or its process ending badly becomes a kind and a short
// reason — "API error 401: log in again", "stopped: usage limit, resets 14:00", "API error 400:
// prompt is too long", "exited with code 1: Unable to connect". Pure: the clock arrives as an
// argument; times are written in the local time zone of the process that classifies.
import { clip } from '../questions/question';

/** api: the model API refused; auth: log in again; usage: a rate or usage limit; exit: the process ended badly. */
export type FailureKind = 'api' | 'auth' | 'usage' | 'exit';
export const FAILURE_KINDS: readonly FailureKind[] = ['api', 'auth', 'usage', 'exit'];

export interface StatusFailure {
  kind: FailureKind;
  /** One line for the sidebar, the why strip, the notification and `termio sessions why`. */
  reason: string;
  /** When a usage limit lifts (ms since the epoch), when the error said. */
  resetsAt?: number;
}

/** A reason is one line of at most this many characters. */
export const MAX_FAILURE_REASON_CHARS = 120;
/** The API's own message is quoted in at most this many characters. */
const MAX_QUOTED_MESSAGE_CHARS = 80;
/** How deep and how wide the payload is read, and how much of any one string: a payload is the agent's, not ours. */
const MAX_DEPTH = 4;
const MAX_FIELDS = 64;
const MAX_TEXT_CHARS = 4000;

/** Fields that say what went wrong, in the order their text is preferred as the message. */
const MESSAGE_KEYS = ['message', 'error_description', 'detail', 'details', 'error_details', 'errorDetails', 'msg', 'error', 'reason', 'title'];
/** Numeric fields that carry an HTTP status. */
const STATUS_KEYS = ['status', 'statusCode', 'status_code', 'httpStatus', 'http_status', 'code'];
/** Fields beside the key path's value that describe the same failure (Claude Code and Qwen send
 *  `error` with `error_details`, Claude Code the text it showed in `last_assistant_message`,
 *  Copilot `error` with `errorContext`). */
const SIBLING_SUFFIXES = ['_details', 'Details', 'Context', '_context', '_message', 'Message'];
const SIBLING_KEYS = ['details', 'message', 'last_assistant_message'];
/** Fields that give a retry time: seconds to wait, or the moment a limit resets. */
const RETRY_SECONDS_KEYS = ['retry_after', 'retryAfter', 'retry-after', 'retry_after_seconds', 'retryAfterSeconds'];
const RESET_AT_KEYS = ['reset', 'resets_at', 'resetsAt', 'reset_at', 'resetAt', 'reset_time', 'resetTime', 'resets'];

/** What was read out of the payload: texts in preference order, an HTTP status, a reset time. */
interface Evidence {
  texts: string[];
  status: number | null;
  resetsAt: number | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHttpStatus = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 400 && n <= 599;

/**
 * Classifies the value a failure hook's key path points at (a string, or an object with
 * message / error / status / code fields), reading beside it the fields of `around` (the object
 * that holds the key) that describe it. `now` anchors relative retry times ("try again in 5
 * minutes", retry-after seconds) and "resets 2pm".
 */
export function failureFromPayload(value: unknown, now: number, around?: { key: string; holder: unknown }): StatusFailure {
  const ev: Evidence = { texts: [], status: null, resetsAt: null };
  const budget = { fields: MAX_FIELDS };
  collect(value, ev, now, 0, budget);
  if (around && isObj(around.holder)) {
    const names = [...SIBLING_SUFFIXES.map((s) => `${around.key}${s}`), ...SIBLING_KEYS];
    for (const name of names) if (name !== around.key && around.holder[name] !== undefined) collect(around.holder[name], ev, now, 1, budget);
    // A retry time may sit beside the error rather than in it.
    readTimes(around.holder, ev, now);
  }
  return classify(ev, now);
}

/** A process that ended with a non-zero code or a signal Termio did not send; the last
 *  non-empty line on its screen says why, when it said anything ("Unable to connect…"). */
export function failureFromExit(exitCode: number, signal: number | undefined, lastLine?: string): StatusFailure {
  const how = signal ? `ended by signal ${signal}` : `exited with code ${exitCode}`;
  const line = lastLine?.trim() ?? '';
  return { kind: 'exit', reason: clip(line ? `${how}: ${line}` : how, MAX_FAILURE_REASON_CHARS) };
}

/** The last line with text on a screen, for failureFromExit. */
export function lastScreenLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (l) return l;
  }
  return undefined;
}

/** Walks a value (bounded) for message texts, an HTTP status and a reset time. */
function collect(v: unknown, ev: Evidence, now: number, depth: number, budget: { fields: number }): void {
  if (depth > MAX_DEPTH || budget.fields-- <= 0) return;
  if (typeof v === 'string') return collectText(v.slice(0, MAX_TEXT_CHARS), ev, now, depth, budget);
  if (isHttpStatus(v)) {
    ev.status ??= v;
    return;
  }
  if (!isObj(v)) return;
  for (const k of STATUS_KEYS) {
    const s = typeof v[k] === 'string' && /^\d{3}$/.test(v[k]) ? Number(v[k]) : v[k];
    if (isHttpStatus(s)) ev.status ??= s;
  }
  readTimes(v, ev, now);
  // An API error's kind ("rate_limit_error") says as much as its words do.
  for (const k of ['type', 'code']) if (typeof v[k] === 'string') ev.texts.push(v[k].slice(0, MAX_TEXT_CHARS));
  for (const k of MESSAGE_KEYS) if (v[k] !== undefined) collect(v[k], ev, now, depth + 1, budget);
  // Headers or a nested response may carry the status and the retry time.
  for (const k of ['headers', 'response', 'cause', 'data', 'body']) if (isObj(v[k])) collect(v[k], ev, now, depth + 1, budget);
}

/** A text, and the JSON an SDK often appends to it ('400 {"type":"error",...}'). */
function collectText(text: string, ev: Evidence, now: number, depth: number, budget: { fields: number }): void {
  const brace = text.indexOf('{');
  const head = brace > 0 ? text.slice(0, brace).trim() : text;
  if (brace >= 0) {
    try {
      // The JSON may sit inside brackets or be followed by words ("[API Error: {…}]").
      const json = text.slice(brace);
      const inner: unknown = parseJson(json) ?? JSON.parse(json.slice(0, json.lastIndexOf('}') + 1));
      // The JSON's own message comes before the prefix ("400"): it is the words.
      collect(inner, ev, now, depth + 1, budget);
      // A marker before it ("■") says nothing.
      if (/[\p{L}\p{N}]/u.test(head)) ev.texts.push(head);
    } catch {
      ev.texts.push(text);
    }
  } else ev.texts.push(text);
  const status = statusInText(head || text);
  if (status !== null) ev.status ??= status;
  ev.resetsAt ??= resetInText(text, now);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An HTTP status written in words: "429 Too Many Requests", "status 401", "API Error: 400",
 *  "HTTP error: 400", "(429)". */
function statusInText(text: string): number | null {
  const m =
    /^\s*([45]\d\d)\b/.exec(text) ??
    /\b(?:HTTP(?:\/[\d.]+|\s*error)?|status(?:\s*code)?|API\s*Error:?|error\s*code:?)\s*:?\s*\(?([45]\d\d)\b/i.exec(text) ??
    /\(([45]\d\d)\)/.exec(text);
  if (!m) return null;
  return Number(m[1] ?? m[2]);
}

/** Retry-after seconds or a reset moment given as fields of an object. */
function readTimes(o: Obj, ev: Evidence, now: number): void {
  if (ev.resetsAt !== null) return;
  for (const k of RETRY_SECONDS_KEYS) {
    const n = typeof o[k] === 'string' ? Number(o[k]) : o[k];
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0 && n < 366 * 86400) {
      ev.resetsAt = now + n * 1000;
      return;
    }
  }
  for (const k of RESET_AT_KEYS) {
    const t = momentOf(o[k]);
    if (t !== null) {
      ev.resetsAt = t;
      return;
    }
  }
}

/** A moment as epoch seconds, epoch ms or an ISO date; null when it is none of them. */
function momentOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v < 1e11 ? v * 1000 : v;
  if (typeof v !== 'string') return null;
  if (/^\d{9,13}$/.test(v)) return momentOf(Number(v));
  const t = Date.parse(v);
  return Number.isFinite(t) && /\d{4}-\d{2}-\d{2}/.test(v) ? t : null;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** A reset time written in words: "try again in 5 minutes", "retry after 30s", "resets 2pm",
 *  "resets at 14:30", "resets 2026-12-07T14:00:00Z", "usage limit reached|1765116000". */
function resetInText(text: string, now: number): number | null {
  const epoch = /limit reached\|(\d{10,13})\b/i.exec(text);
  if (epoch) return momentOf(epoch[1]);
  const iso = /\bresets?\s+(?:at\s+)?(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)/i.exec(text);
  if (iso) return momentOf(iso[1]);
  const rel = /\b(?:try again|retry|resets?|available)\s+(?:in|after)\s+(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?)\b/i.exec(
    text,
  );
  if (rel) return now + Number(rel[1]) * UNIT_MS[rel[2]!.toLowerCase()[0]!]!;
  const clock = /\bresets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/i.exec(text);
  if (clock && (clock[2] !== undefined || clock[3] !== undefined)) {
    let h = Number(clock[1]);
    const min = clock[2] !== undefined ? Number(clock[2]) : 0;
    const ampm = clock[3]?.toLowerCase();
    if (ampm === 'pm' && h < 12) h += 12;
    if (ampm === 'am' && h === 12) h = 0;
    if (h > 23 || min > 59) return null;
    // The next such time of day, in local time.
    const d = new Date(now);
    d.setHours(h, min, 0, 0);
    if (d.getTime() <= now) d.setDate(d.getDate() + 1);
    return d.getTime();
  }
  return null;
}

const AUTH_WORDS =
  /\b(?:authenticat\w*|unauthori[sz]ed|forbidden|invalid[\s_-]*(?:x-)?api[\s_-]*key|api[\s_-]*key\s+(?:is\s+)?(?:invalid|missing|expired)|not\s+logged\s+in|log\s*in\s+again|please\s+(?:run\s+\/)?login|oauth\s+token\s+(?:has\s+)?expired|token\s+expired|credentials?\s+(?:are\s+)?(?:invalid|expired|missing)|permission_error)\b|\bauth(?:_|\s)?(?:error|failed|failure|required)\b/i;
const USAGE_WORDS =
  /\b(?:rate[\s_-]*limit\w*|usage[\s_-]*limit\w*|quota\w*|too\s+many\s+requests|resource[\s_-]*exhausted|billing\w*|credit\s+balance|insufficient[\s_-]*(?:quota|credits?|funds)|limit\s+reached|hit\s+your\s+limit)\b/i;
/** An API's own error kinds, the words that say a request failed at the API. */
const API_WORDS =
  /\b(?:api[\s_-]*error|invalid[\s_-]*request\w*|server[\s_-]*error|overloaded\w*|bad[\s_-]*request|not[\s_-]*found[\s_-]*error|model[\s_-]*not[\s_-]*found|max[\s_-]*output[\s_-]*tokens|context[\s_-]*length\w*)\b/i;
/** Category names without words of their own (Claude Code's `error`: "rate_limit", "invalid_request";
 *  an API body's "error"): the message says more. */
const BARE_CATEGORY = /^[a-z]+(?:_[a-z]+)*$/;

function classify(ev: Evidence, now: number): StatusFailure {
  const all = ev.texts.join('\n');
  const status = ev.status;
  const message = bestMessage(ev.texts);
  const code = status !== null ? ` ${status}` : '';
  if (status === 401 || status === 403 || (status === null && AUTH_WORDS.test(all))) {
    return { kind: 'auth', reason: `API error${code}: log in again` };
  }
  if (status === 429 || USAGE_WORDS.test(all)) {
    const resets = ev.resetsAt !== null && ev.resetsAt > now ? ev.resetsAt : null;
    return {
      kind: 'usage',
      reason: `stopped: usage limit${resets !== null ? `, resets ${formatClock(resets, now)}` : ''}`,
      resetsAt: resets ?? undefined,
    };
  }
  if (status !== null || API_WORDS.test(all)) {
    const words = message ? `: ${clip(message, MAX_QUOTED_MESSAGE_CHARS)}` : '';
    return { kind: 'api', reason: clip(`API error${code}${words}`, MAX_FAILURE_REASON_CHARS) };
  }
  return { kind: 'api', reason: clip(`stopped: ${message || 'an error the agent did not describe'}`, MAX_FAILURE_REASON_CHARS) };
}

/** The first line of the most telling text: a sentence over a category name or a bare status. */
function bestMessage(texts: readonly string[]): string {
  const lines = texts.map((t) => firstLine(t.replace(/^\s*(?:API\s*Error:?\s*)?[45]\d\d\b[\s:\u00b7-]*/i, ''))).filter((l) => l.length > 0);
  return lines.find((l) => !BARE_CATEGORY.test(l)) ?? lines[0] ?? '';
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ''
  );
}

/** "14:00" today, "Tue 14:00" within the week, "Dec 9 14:00" beyond: local time. */
export function formatClock(at: number, now: number): string {
  const d = new Date(at);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return hm;
  if (at - now < 6 * 86_400_000) return `${d.toLocaleDateString('en-US', { weekday: 'short' })} ${hm}`;
  return `${d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })} ${hm}`;
}
