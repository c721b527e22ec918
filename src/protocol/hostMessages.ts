// The JSON messages of the host's client protocol: what a client may send (zod schemas, checked
// by the host; types inferred) and what the host answers (plain types: clients trust their host
// but still bound what they read, see hostFraming.ts). Frames and rows are binary (hostFrame.ts).
import * as z from 'zod';
import { MAX_COLS, MAX_ROWS } from './hostFrame';
import { AppParamsSchemas, type AppEvent, type AppResults } from './hostAppMessages';
import { CompanionParamsSchemas, type CompanionResults } from './companion';
import { MachineParamsSchemas, type MachineResults } from './machines';
import { ControlArgsSchemas, type ControlErrorCode, type ControlResultSchemas, type WatchEvent } from './control';
import type { SessionInfo } from './sessionInfo';
import { SELECTION_MODES } from './selectionMode';

/** Room for ids and names: session ids are UUIDs (36 chars). */
const MAX_ID_CHARS = 64;
/** `rows` requests page through scrollback; 1,000 lines of a wide screen stay well under the
 *  host's message limit. */
export const MAX_ROWS_PER_REQUEST = 1000;
/** Find answers at most this many matches (the rest is counted): enough to step through and to
 *  mark a scrollbar, bounded however common the query. */
export const MAX_FIND_MATCHES = 1000;
/** Find queries are typed by a person; 1,024 chars is far past any real one. */
const MAX_QUERY_CHARS = 1024;
/** Key names are at most a dozen characters ('NumpadSubtract'); 32 leaves room. */
const MAX_KEY_CHARS = 32;
/** The text one key press produces: one grapheme, which can be several code points (a flag, a
 *  family emoji); 16 UTF-16 units covers them. */
const MAX_KEY_TEXT_CHARS = 16;

/** Pixel positions inside a terminal: far past an 8K screen. */
const MAX_PIXELS = 16_384;

const uint32 = z.number().int().min(0).max(0xffffffff);
const cols = z.number().int().min(1).max(MAX_COLS);
const rows = z.number().int().min(1).max(MAX_ROWS);
const sessionRef = z.string().min(1).max(MAX_ID_CHARS).describe('a session id or a unique prefix of one');
const point = z.strictObject({ x: z.number().int().min(0).max(MAX_COLS), y: z.number().int().min(0) });

/** A session secret is 43 characters (32 bytes, base64url); 128 bounds what a request may claim. */
const MAX_SECRET_CHARS = 128;
export const HelloSchema = z.strictObject({
  t: z.literal('hello'),
  protocol: z.number().int().describe('HOST_PROTOCOL_VERSION of the client'),
  client: z.string().max(MAX_ID_CHARS).describe('what the client is: termio-attach, termio-app, …'),
  version: z.string().max(MAX_ID_CHARS).describe("the client's Termio version"),
  session: z.string().max(MAX_ID_CHARS).optional().describe('TERMIO_SESSION when the client runs inside a Termio session'),
  secret: z.string().max(MAX_SECRET_CHARS).optional().describe("that session's TERMIO_SESSION_SECRET: the host then knows which session asks"),
});
export type Hello = z.infer<typeof HelloSchema>;

/**
 * Methods and their parameters. Unknown parameter names are rejected, so typos surface at once.
 * The session verbs (sessions.*, app.notify, app.open, app.activate, version, ping) are the host's
 * one method table, the same the control socket serves (control.ts); the rest need this socket:
 * views and their frames, the app's subscription, the companion.
 */
export const HostParamsSchemas = {
  ...ControlArgsSchemas,
  'host.status': z.strictObject({}),
  'host.stop': z.strictObject({}),
  attach: z.strictObject({
    session: sessionRef,
    view: uint32.describe('chosen by the client; frames and input name it'),
    cols,
    rows,
  }),
  detach: z.strictObject({ view: uint32 }),
  rows: z.strictObject({
    view: uint32,
    first: z.number().int().min(0).describe('absolute buffer line, 0 = the oldest scrollback line'),
    count: z.number().int().min(1).max(MAX_ROWS_PER_REQUEST),
  }),
  find: z.strictObject({ view: uint32, query: z.string().min(1).max(MAX_QUERY_CHARS).describe('matched case-insensitively, as the find bar does') }),
  selectionText: z.strictObject({
    view: uint32,
    start: point.optional().describe("with end: this range; omitted: the session's own selection"),
    end: point.optional(),
    mode: z.enum(SELECTION_MODES).optional(),
  }),
  ...AppParamsSchemas,
  ...CompanionParamsSchemas,
  ...MachineParamsSchemas,
};
export type HostMethod = keyof typeof HostParamsSchemas;
export type HostParams<M extends HostMethod> = z.infer<(typeof HostParamsSchemas)[M]>;

export const RequestSchema = z.strictObject({
  t: z.literal('req'),
  id: uint32,
  method: z.string().max(MAX_ID_CHARS),
  params: z.unknown().optional(),
  secret: z.string().max(MAX_SECRET_CHARS).optional().describe("the caller's TERMIO_SESSION_SECRET when it runs inside a Termio session"),
});

const mods = { shift: z.boolean().optional(), ctrl: z.boolean().optional(), alt: z.boolean().optional(), meta: z.boolean().optional() };

/** Input as intent: the host turns it into bytes with the emulator's current modes. */
export const InputIntentSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('key'), key: z.string().min(1).max(MAX_KEY_CHARS), text: z.string().max(MAX_KEY_TEXT_CHARS).optional(), ...mods }),
  z.strictObject({ kind: z.literal('text'), text: z.string().min(1).describe('typed text (an input method commit), sent as is') }),
  z.strictObject({ kind: z.literal('paste'), text: z.string() }),
  z.strictObject({
    kind: z.literal('mouse'),
    action: z.enum(['press', 'release', 'move', 'wheel']),
    button: z.enum(['left', 'middle', 'right', 'none', 'wheelUp', 'wheelDown', 'wheelLeft', 'wheelRight']),
    col: z.number().int().min(0).max(MAX_COLS),
    row: z.number().int().min(0).max(MAX_ROWS),
    x: z.number().int().min(0).max(MAX_PIXELS).optional().describe('pixels inside the terminal, for SGR-pixels reports'),
    y: z.number().int().min(0).max(MAX_PIXELS).optional(),
    shift: z.boolean().optional(),
    alt: z.boolean().optional(),
    ctrl: z.boolean().optional(),
  }),
  z.strictObject({ kind: z.literal('resize'), cols, rows }),
  z.strictObject({ kind: z.literal('focus'), focused: z.boolean() }),
  /** Scrolls the session's viewport through scrollback (negative = up), or to one end. */
  z.strictObject({ kind: z.literal('scroll'), lines: z.number().int().min(-1_000_000).max(1_000_000).optional(), to: z.enum(['top', 'bottom']).optional() }),
  /** The session's selection: start one at a buffer point (by char, word or line), move its head
   *  (a drag), extend it from its start (Shift-click), or clear it. */
  z.discriminatedUnion('action', [
    z.strictObject({ kind: z.literal('select'), action: z.literal('start'), at: point, mode: z.enum(SELECTION_MODES) }),
    z.strictObject({ kind: z.literal('select'), action: z.literal('extend'), at: point }),
    z.strictObject({ kind: z.literal('select'), action: z.literal('extendFromStart'), at: point }),
    z.strictObject({ kind: z.literal('select'), action: z.literal('clear') }),
  ]),
]);
export type InputIntent = z.infer<typeof InputIntentSchema>;

export const InputSchema = z.strictObject({ t: z.literal('input'), view: uint32, input: InputIntentSchema });
export const AckSchema = z.strictObject({ t: z.literal('ack'), view: uint32, seq: uint32 });

/** Everything a client sends after its hello. */
export const ClientMessageSchema = z.discriminatedUnion('t', [RequestSchema, InputSchema, AckSchema]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

const isUint32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
const MOD_KEYS = new Set(['shift', 'ctrl', 'alt', 'meta']);

/**
 * The two messages a client sends most, checked without zod: a frame's acknowledgement and a key
 * press (each keystroke's echo waits for both on its way). Returns what ClientMessageSchema would
 * (a fresh object with the same fields), or null for anything else, however well-formed: the
 * schema then decides, so this never accepts what the schema refuses (hostProtocol's property test
 * holds the two together). zod's parse of these costs a keystroke about a tenth of a millisecond on
 * this machine's 2 cores.
 */
export function readFrequentClientMessage(value: unknown): ClientMessage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return null;
  const m = value as Record<string, unknown>;
  if (m.t === 'ack') {
    if (Object.keys(m).length !== 3 || !isUint32(m.view) || !isUint32(m.seq)) return null;
    return { t: 'ack', view: m.view, seq: m.seq };
  }
  if (m.t !== 'input' || Object.keys(m).length !== 3 || !isUint32(m.view)) return null;
  const i = m.input;
  if (typeof i !== 'object' || i === null || Array.isArray(i) || Object.getPrototypeOf(i) !== Object.prototype) return null;
  const k = i as Record<string, unknown>;
  if (k.kind !== 'key' || typeof k.key !== 'string' || k.key.length < 1 || k.key.length > MAX_KEY_CHARS) return null;
  const key: Extract<InputIntent, { kind: 'key' }> = { kind: 'key', key: k.key };
  for (const name of Object.keys(k)) {
    if (name === 'kind' || name === 'key') continue;
    const v = k[name];
    if (name === 'text') {
      if (typeof v !== 'string' || v.length > MAX_KEY_TEXT_CHARS) return null;
      key.text = v;
    } else if (MOD_KEYS.has(name)) {
      if (typeof v !== 'boolean') return null;
      key[name as 'shift' | 'ctrl' | 'alt' | 'meta'] = v;
    } else {
      return null;
    }
  }
  return { t: 'input', view: m.view, input: key };
}

/** The host socket's own codes, and the session verbs' (control.ts) for their answers. */
export type HostErrorCode =
  | ControlErrorCode
  | 'versionMismatch'
  | 'handshakeRequired'
  | 'badMessage'
  | 'oversized'
  | 'unknownMethod'
  | 'badParams'
  | 'noSuchSession'
  | 'ambiguousSession'
  | 'noSuchView'
  | 'viewInUse'
  | 'spawnFailed'
  | 'badDirectory'
  | 'busy'
  | 'forbidden'
  | 'badSettings'
  // companion.removeDevice: no device by that id.
  | 'noSuchDevice'
  // The worktree verbs' refusals (the review view asks them over this socket too).
  | 'notAWorktree'
  | 'worktreeRefused'
  | 'mergeConflict'
  | 'unsavedWork';

export interface HostError {
  code: HostErrorCode;
  message: string;
}

/** Capabilities this host offers (a client checks before it relies on one). */
export const HOST_CAPABILITIES = ['frames', 'rows', 'find', 'selectionText', 'input', 'spawn', 'scroll', 'select', 'app', 'companion', 'machines'] as const;

/** What a hub needs of a machine's host: a hub subscription, and the session verbs on this socket. */
export const HUB_CAPABILITY = 'machines';

/** Said, besides HOST_CAPABILITIES, by a host whose sessions run on session holders: SIGUSR2
 *  restarts it and every agent keeps running. */
export const KEEPS_AGENTS_CAPABILITY = 'keepsAgents';

export interface HostHello {
  t: 'hello';
  protocol: number;
  hostVersion: string;
  capabilities: string[];
  pid: number;
  /** The host's id (kept in its TERMIO_HOME): a hub connects one host once, whatever the route. */
  hostId?: string;
}

export interface HostStatus {
  pid: number;
  version: string;
  protocol: number;
  /** ISO time. */
  startedAt: string;
  socket: string;
  log: string;
  sessions: number;
  clients: number;
  /** Each connected client: what it said it is, its views, frames sent, bytes not yet taken. */
  clientList: Array<{ client: string; views: number; framesSent: number; unsentBytes: number }>;
  rssBytes: number;
  /** Whether sessions run on session holders (they outlive a host restart), how many do, and if not why. */
  holders?: { available: boolean; held: number; reason?: string };
}

type SessionVerbResults = { [V in keyof typeof ControlResultSchemas]: z.infer<(typeof ControlResultSchemas)[V]> };

/** What each method answers with when it succeeds (`rows` answers with a binary rows message). */
export interface HostResults extends SessionVerbResults, AppResults, CompanionResults, MachineResults {
  'host.status': HostStatus;
  'host.stop': Record<string, never>;
  attach: { view: number; session: SessionInfo };
  detach: Record<string, never>;
  rows: never;
  find: { matches: Array<{ start: { x: number; y: number }; end: { x: number; y: number } }>; total: number };
  selectionText: { text: string; truncated: boolean };
}

export type HostResponse = { t: 'res'; id: number; ok: true; result: unknown } | { t: 'res'; id: number; ok: false; error: HostError };

export type HostEvent =
  /** The view ended: its session was closed, or the same client attached the view id again. */
  | { t: 'event'; event: 'detached'; view: number; reason: 'sessionClosed' | 'hostStopping' }
  /** Whether this view holds the session's input (and its size) now. */
  | { t: 'event'; event: 'input'; view: number; holding: boolean }
  /** One change after a `sessions.watch` request's answer (the request's id). */
  | { t: 'event'; event: 'watch'; request: number; change: WatchEvent }
  | AppEvent;

/** A protocol-level error; after a framing error the host ends the connection. */
export interface HostProtocolError {
  t: 'error';
  code: HostErrorCode;
  message: string;
  /** With versionMismatch: what the host speaks, so a client can say so and offer a restart. */
  protocol?: number;
  hostVersion?: string;
  /** With versionMismatch: the host's pid, so a client of another version can still stop it (SIGTERM). */
  pid?: number;
  /** With versionMismatch: the host restarts on SIGUSR2 and its agents keep running (session holders). */
  keepsAgents?: boolean;
}

export type HostMessage = HostHello | HostResponse | HostEvent | HostProtocolError;

/** A readable one-line summary of a zod failure: where and what. */
export function describeIssues(error: z.ZodError, what: string): string {
  const first = error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : what}: ${i.message}`);
  return `${what}: ${first.join('; ')}${error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : ''}`;
}
