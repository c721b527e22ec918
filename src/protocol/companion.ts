// The web companion's messages: the `companion.*` requests a client of the host's socket sends
// (the CLI, the app's Settings → Phone), and the JSON the browser page and the host exchange over
// the companion's WebSocket. Pure types and zod schemas; the page imports only the types.
import * as z from 'zod';
import type { SessionState } from './status/sessionState';
import { DeviceIdSchema, type PushDeviceInfo } from './push';
import { MAX_CONVERSATION_ID_LENGTH } from './resumePlan';

/** Ports a user may pick: the unprivileged range, so the host never needs root. */
export const MIN_COMPANION_PORT = 1024;
export const MAX_COMPANION_PORT = 65_535;
/** The default port: unassigned by IANA, easy to read off a QR code's text. */
export const DEFAULT_COMPANION_PORT = 7681;

export const CompanionParamsSchemas = {
  'companion.status': z.strictObject({}),
  'companion.enable': z.strictObject({
    network: z.enum(['loopback', 'lan']).optional().describe('lan = reachable from other devices on the network'),
    port: z.number().int().min(MIN_COMPANION_PORT).max(MAX_COMPANION_PORT).optional(),
  }),
  'companion.disable': z.strictObject({}),
  'companion.revoke': z.strictObject({}),
  'companion.devices': z.strictObject({}),
  'companion.removeDevice': z.strictObject({ id: DeviceIdSchema }),
};

/** What `companion.status` (and enable, disable, revoke) answer. */
export interface CompanionStatus {
  enabled: boolean;
  network: 'loopback' | 'lan';
  port: number;
  /** The server listens now (enabled and the port could be bound). */
  listening: boolean;
  /** The pairing URL, token included in the fragment; null when not listening, or withheld. */
  url: string | null;
  /** The link exists but was not given: the asking client runs inside a Termio session. */
  urlWithheld?: boolean;
  /** What the change did besides (settings.json could not be read and was moved aside). */
  notices?: string[];
  /** Why it does not listen although enabled (port taken, …); null otherwise. */
  error: string | null;
  /** Pages connected with the current token. */
  pages: number;
}

export interface CompanionResults {
  'companion.status': CompanionStatus;
  'companion.enable': CompanionStatus;
  'companion.disable': CompanionStatus;
  'companion.revoke': CompanionStatus;
  /** The devices registered for Web Push (docs/companion.md). */
  'companion.devices': { devices: PushDeviceInfo[] };
  'companion.removeDevice': { removed: string; devices: PushDeviceInfo[] };
}

/** One session as the page lists it. */
export interface PageSession {
  id: string;
  agentId: string | null;
  /** What the list shows: the session's title, else its agent's name, else its command. */
  name: string;
  /** The folder, with the home folder shortened to ~. */
  folder: string;
  state: SessionState;
  /** Epoch ms (host clock) since when it is in that state. */
  stateSince: number;
  /** Epoch ms (host clock) since when it waits for you (the attention queue), or null. */
  waitingSince: number | null;
  exited: boolean;
  /** What it asks while it needs you, or null. */
  question: PageQuestion | null;
  /** The failure it stopped on, in words ("API error 401: log in again"); its state is attention. */
  failure?: string;
  /** The saved machine that runs it (termio machines), or null for this one. */
  machine: string | null;
  /** Its machine is away: the state is the last one known. */
  away?: true;
}

/** A waiting session's question as the page shows it: one button per choice. */
export interface PageQuestion {
  /** Sent back with an answer: a tap on a question that has since changed is refused. */
  id: string;
  text: string;
  /** The command or file it is about, as the agent shows it, or ''. */
  context: string;
  choices: Array<{ label: string; description?: string }>;
  /** The label already chosen (from any client), or null. */
  answered: string | null;
}

/** Why an answer from the page was not sent. */
export type PageAnswerRefusal = 'questionChanged' | 'noQuestion' | 'noSuchChoice' | 'alreadyAnswered' | 'sessionExited' | 'noSuchSession' | 'machineAway';

export interface PageAgent {
  name: string;
  /** The agent's icon as SVG text, or null when it has none. */
  iconSvg: string | null;
}

/** A terminal colour theme as CSS colours (the host's own, so the page matches the app). */
export interface PageTheme {
  foreground: string;
  background: string;
  cursor: string;
  cursorText: string;
  selection: string;
  /** ANSI 0–15. */
  ansi: string[];
}

/** Host → page, as JSON text. Output bytes of the attached session come as binary messages. */
export type CompanionServerMessage =
  /** `search`: the host searches past conversations for the page. */
  | { t: 'hello'; themes: { dark: PageTheme; light: PageTheme }; search?: true }
  | { t: 'sessions'; now: number; sessions: PageSession[]; agents: Record<string, PageAgent> }
  | { t: 'attached'; session: string; cols: number; rows: number; snapshot: string; holding: boolean }
  | { t: 'resize'; cols: number; rows: number }
  | { t: 'holding'; holding: boolean }
  | { t: 'detached'; session: string; reason: 'sessionClosed' | 'noSuchSession' }
  | { t: 'answered'; session: string; question: string; choice: string }
  /** `current`: the question asked now (null: none), shown instead of the one tapped. */
  | { t: 'answerRefused'; session: string; question: string; reason: PageAnswerRefusal; message: string; current: PageQuestion | null }
  /** What a new session may be started with: the agents (picker order) and the recent folders. */
  | { t: 'launch'; agents: Array<{ id: string; name: string }>; folders: Array<{ path: string; label: string }> }
  | { t: 'spawned'; session: string }
  | { t: 'spawnFailed'; message: string }
  /** The answer to the search `seq` (the page shows only its latest); `message`: why there is none. */
  | { t: 'found'; seq: number; results: PageHistoryHit[]; agents: Record<string, PageAgent>; note: string; message?: string }
  /** A hit tapped: the session that resumes it (new, or the one it was open in), or why not. */
  | { t: 'resumed'; session: string }
  | { t: 'resumeFailed'; message: string }
  | { t: 'pong' };

/** A past conversation found by the page's search, as the page shows it. */
export interface PageHistoryHit {
  agent: string;
  agentName: string;
  conversation: string;
  /** The folder it ran in, home shown as ~; null when its transcript does not say. */
  folder: string | null;
  /** The saved machine it is on; null for the host's own. */
  machine: string | null;
  /** Its first prompt. */
  title: string | null;
  lastActivity: string | null;
  /** The best matching line, and where the words are in it (UTF-16 units). */
  snippet: string;
  hits: Array<{ start: number; length: number }>;
}

/** The longest search the page sends (the control protocol's own limit). */
export const MAX_PAGE_SEARCH_CHARS = 500;

/** A first prompt from the page: a paragraph or two typed on a phone, with room. */
export const MAX_PAGE_PROMPT_CHARS = 16 * 1024;

/** The longest text one input message carries: a large paste (1 MiB of UTF-16). */
export const MAX_PAGE_INPUT_CHARS = 512 * 1024;
/** Sizes a page may ask for: a phone is ~45 columns, a desktop browser a few hundred. */
const pageCols = z.number().int().min(2).max(500);
const pageRows = z.number().int().min(2).max(300);

/** Page → host, as JSON text. */
export const CompanionClientMessageSchema = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('attach'), session: z.string().min(1).max(64), cols: pageCols, rows: pageRows }),
  z.strictObject({ t: z.literal('detach') }),
  z.strictObject({ t: z.literal('size'), cols: pageCols, rows: pageRows }),
  z.strictObject({ t: z.literal('input'), data: z.string().min(1).max(MAX_PAGE_INPUT_CHARS) }),
  z.strictObject({
    t: z.literal('key'),
    key: z.string().min(1).max(32),
    ctrl: z.boolean().optional(),
    alt: z.boolean().optional(),
    shift: z.boolean().optional(),
  }),
  z.strictObject({ t: z.literal('ping') }),
  z.strictObject({
    t: z.literal('answer'),
    session: z.string().min(1).max(64),
    question: z.string().min(1).max(64),
    /** The choice's index in the question's list (0 = the first). */
    choice: z.number().int().min(0).max(63),
  }),
  z.strictObject({
    t: z.literal('spawn'),
    /** One of the `launch` message's agents, and one of its folders: the page starts nothing else. */
    agent: z.string().min(1).max(64),
    folder: z.string().min(1).max(4096),
    /** Typed once the agent is ready for input, as `termio sessions spawn --prompt` does. */
    prompt: z.string().min(1).max(MAX_PAGE_PROMPT_CHARS).optional(),
  }),
  /** Search past conversations (the host's history index, every machine's); answered by `found` with the same seq. */
  z.strictObject({ t: z.literal('search'), query: z.string().min(1).max(MAX_PAGE_SEARCH_CHARS), seq: z.number().int().min(0) }),
  /** Resume a conversation one of the page's results named (as `termio history resume` does). */
  z.strictObject({
    t: z.literal('resume'),
    agent: z.string().min(1).max(64),
    conversation: z.string().min(1).max(MAX_CONVERSATION_ID_LENGTH),
    machine: z.string().min(1).max(64).nullable(),
  }),
]);
export type CompanionClientMessage = z.infer<typeof CompanionClientMessageSchema>;

export { CLOSE_REVOKED, CLOSE_HOST_STOPPING, COMPANION_SUBPROTOCOL, AUTH_SUBPROTOCOL_PREFIX } from './companionWire';
