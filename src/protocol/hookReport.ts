// The hook-report wire format: what bin/termio-hook sends on the hook socket (one JSON line per
// connection), its validation, and what the host reads out of the agent's raw payload
// (conversation id, tool, prompt title, transcript path). bin/termio-hook is plain JS and
// repeats HOOK_REPORT_VERSION and MAX_HOOK_PAYLOAD_CHARS; a unit test keeps them equal.
import * as z from 'zod';
import { SESSION_STATES } from './status/sessionState';
import { payloadKeys } from './hooks/dialects';
import { failureFromPayload, type StatusFailure } from './status/failureReason';

export const HOOK_REPORT_VERSION = 2;
/** The reporter forwards at most this much of the payload: enough for every field we read
 *  (agents put ids first), small enough that a 1 MB tool response costs nothing. */
export const MAX_HOOK_PAYLOAD_CHARS = 64 * 1024;
/** A frame is the payload JSON-escaped (at worst 6 chars per char) plus a small envelope. */
export const MAX_HOOK_FRAME_BYTES = 6 * MAX_HOOK_PAYLOAD_CHARS + 4096;
/** The reporter's ancestors it sends, nearest first: agents run hooks at most a few processes deep,
 *  and a nested agent sits a few more levels down; 32 covers both with room and bounds the frame. */
export const MAX_REPORT_PARENTS = 32;
/** /proc/<pid>/stat's comm is 15 bytes, macOS's p_comm 16; 64 leaves room and bounds the frame. */
const MAX_PROCESS_NAME_CHARS = 64;
/** TERMIO_SESSION_SECRET is 32 random bytes, base64url: 43 characters. */
const MAX_SECRET_CHARS = 128;
/** A prompt becomes a title for a tab and a menu: its first line, this long at most. */
export const MAX_PROMPT_TITLE_CHARS = 80;

const MAX_ID_CHARS = 128;
const MAX_NAME_CHARS = 128;

export const HookReportSchema = z.strictObject({
  v: z.literal(HOOK_REPORT_VERSION).describe('wire format version'),
  session: z.string().min(1).max(MAX_ID_CHARS).describe('TERMIO_SESSION of the terminal the agent runs in'),
  secret: z
    .string()
    .max(MAX_SECRET_CHARS)
    .describe('TERMIO_SESSION_SECRET: proves the reporter runs inside that session (ids are listed by `sessions list`, secrets never)'),
  parents: z
    .array(z.tuple([z.number().int().nonnegative(), z.string().max(MAX_PROCESS_NAME_CHARS)]))
    .max(MAX_REPORT_PARENTS)
    .describe("the reporter's ancestors as [pid, process name], its parent first: who ran the hook (the session's agent, or a nested one)"),
  agent: z.string().min(1).max(MAX_NAME_CHARS).describe('the manifest id baked into the hook command'),
  state: z.enum(SESSION_STATES).describe('the state baked into the hook command (on → state)'),
  event: z.string().max(MAX_NAME_CHARS).describe('the hook event name baked into the hook command'),
  payload: z.string().max(MAX_HOOK_PAYLOAD_CHARS).describe("the agent's raw payload (stdin, or a trailing argv JSON)"),
  truncated: z.boolean().describe('the payload was longer than MAX_HOOK_PAYLOAD_CHARS and was cut'),
});
export type HookReport = z.infer<typeof HookReportSchema>;

export type HookFrameResult = { ok: true; report: HookReport } | { ok: false; error: string };

/** One frame (without its newline) → a report, or why it was refused. Never throws. */
export function parseHookFrame(line: string): HookFrameResult {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const r = HookReportSchema.safeParse(data);
  if (!r.success) return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'frame'}: ${i.message}`).join('; ') };
  return { ok: true, report: r.data };
}

export function encodeHookFrame(report: HookReport): string {
  return `${JSON.stringify(report)}\n`;
}

export interface HookDetails {
  conversationId?: string;
  tool?: string;
  promptTitle?: string;
  transcriptPath?: string;
  cwd?: string;
}

function atPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * The failure a manifest's failure event reports: the value at `keyPath` in the payload, with the
 * fields beside it, classified (failureReason.ts). A payload that is not JSON (or was cut short)
 * is read as text, so the reason still quotes what the agent said.
 */
export function failureOfReport(report: Pick<HookReport, 'payload'>, keyPath: string, now: number): StatusFailure {
  let obj: unknown;
  try {
    obj = JSON.parse(report.payload);
  } catch {
    return failureFromPayload(scanString(report.payload, keyPath.split('.').at(-1)!) ?? report.payload, now);
  }
  const parts = keyPath.split('.');
  const holder = parts.length > 1 ? atPath(obj, parts.slice(0, -1).join('.')) : obj;
  return failureFromPayload(atPath(obj, keyPath), now, { key: parts.at(-1)!, holder });
}

/** A top-level string field read from JSON text that may have been cut short. */
function scanString(text: string, key: string): string | undefined {
  const m = new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

export function promptTitle(prompt: string): string | undefined {
  const line = prompt
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return undefined;
  return line.length > MAX_PROMPT_TITLE_CHARS ? `${line.slice(0, MAX_PROMPT_TITLE_CHARS - 1)}…` : line;
}

/**
 * Reads the fields the host uses out of a report's payload: the conversation id, the tool and the
 * prompt from the manifest's `hooks.conversation`, `hooks.tool` and `hooks.promptTitle` key
 * paths when given, else from the dialect's known field names; the transcript from the dialect's. A payload that is not JSON (or was cut) yields what can be scanned.
 */
export function extractHookDetails(
  report: Pick<HookReport, 'payload'>,
  opts: { dialect: string; conversationKey?: string; toolKey?: string; promptKey?: string },
): HookDetails {
  const keys = payloadKeys(opts.dialect);
  let obj: unknown;
  try {
    obj = JSON.parse(report.payload);
  } catch {
    obj = undefined;
  }
  const read = (paths: readonly string[]): string | undefined => {
    for (const p of paths) {
      const v = obj !== undefined ? atPath(obj, p) : p.includes('.') ? undefined : scanString(report.payload, p);
      if (typeof v === 'string' && v.length > 0) return v;
    }
    return undefined;
  };
  const details: HookDetails = {};
  const conversationId = read(opts.conversationKey ? [opts.conversationKey] : keys.conversation);
  if (conversationId && conversationId.length <= MAX_ID_CHARS) details.conversationId = conversationId;
  const tool = read(opts.toolKey ? [opts.toolKey] : keys.tool);
  if (tool) details.tool = tool.slice(0, MAX_NAME_CHARS);
  const prompt = read(opts.promptKey ? [opts.promptKey] : keys.prompt);
  const title = prompt ? promptTitle(prompt) : undefined;
  if (title) details.promptTitle = title;
  const transcript = read(keys.transcript);
  if (transcript) details.transcriptPath = transcript;
  const cwd = read(['cwd']);
  if (cwd) details.cwd = cwd;
  return details;
}
