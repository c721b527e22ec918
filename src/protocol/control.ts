// The control protocol spoken on $TERMIO_HOME/run/control.sock: every request and reply as a
// zod schema (the single source of truth; types are inferred), plus parseRequest, which turns
// one received frame into a validated request or the error reply to send back.
import * as z from 'zod';
import { CONTROL_PROTOCOL_VERSION, MAX_WAIT_MS } from './controlFrames';
import { MAX_COLS, MAX_ROWS } from './hostFrameFormat';
import { FailureInfoSchema, QuestionInfoSchema, SessionInfoSchema, SessionStateSchema } from './sessionInfo';
import { HISTORY_ERROR_CODES, HistoryArgsSchemas, HistoryResultSchemas } from './controlHistory';
import { WORKTREE_ERROR_CODES, WorktreeArgsSchemas, WorktreeChoiceSchema, WorktreeResultSchemas } from './controlWorktrees';
import { FANOUT_ERROR_CODES, FanoutArgsSchemas, FanoutResultSchemas } from './controlFanout';
import { REVIEW_COMMENT_ERROR_CODES, ReviewCommentArgsSchemas, ReviewCommentResultSchemas } from './reviewCommentSchemas';
import { SETTINGS_ERROR_CODES, SettingsArgsSchemas, SettingsResultSchemas } from './controlSettings';

export * from './controlWorktrees';
export * from './controlFanout';
export { ReviewCommentSchema } from './reviewCommentSchemas';
export type { ReviewComment } from './reviewComments';
export { QuestionInfoSchema, type QuestionInfo } from './sessionInfo';

export { SessionInfoSchema, SessionStateSchema, type SessionInfo } from './sessionInfo';

/** Room for any real path (PATH_MAX is 4096 on Linux, 1024 on macOS). */
const MAX_PATH_CHARS = 4096;
/** A title is a line in a tab and a menu; 256 is far more than either shows. */
const MAX_TITLE_CHARS = 256;
/** Session ids are UUIDs (36 chars); 64 leaves room for other id schemes without inviting abuse. */
const MAX_ID_CHARS = 64;
/** A session secret is 43 characters (32 bytes, base64url); 128 bounds what a frame may claim. */
const MAX_SECRET_CHARS = 128;
/** `sessions.read --lines`: a screen has at most a few hundred rows; 10,000 is a generous ceiling. */
const MAX_READ_LINES = 10_000;
/** `run`: argv entries; far beyond any real command line, small enough to bound a hostile one. */
const MAX_ARGV = 4_096;
/** A notification body: the OS shows a few lines; 4,000 characters is already more than any shows. */
const MAX_NOTIFY_CHARS = 4_000;
/** A choice named by label: an option's label is one line of a menu. */
const MAX_CHOICE_CHARS = 200;

const AbsolutePath = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), { message: 'must be an absolute path' });

const MachineRef = z.string().min(1).max(MAX_ID_CHARS).describe('a saved machine (termio machines) to start it on; its cwd is then a folder there');
const SessionRef = z.string().min(1).max(MAX_ID_CHARS).describe('a session id or a unique prefix of one');

/**
 * What `sessions.wait` (and `--wait` on spawn, run and send) waits for:
 * done = the session is not working (done or idle, or its program ended); idle = idle;
 * attention = it needs the user; exit = its program ended; turn = the work the last input
 * delivered through this socket (send, or spawn's first prompt) started has ended; ready = the
 * program is ready for input (its hook, title or screen says idle; else its output settled).
 */
export const WaitUntilSchema = z.enum(['done', 'idle', 'attention', 'exit', 'turn', 'ready']);
export type WaitUntil = z.infer<typeof WaitUntilSchema>;

const WaitTimeout = z.number().int().min(0).max(MAX_WAIT_MS).describe('give up after this long (timeout outcome)');
const WaitSpec = z.strictObject({ timeoutMs: WaitTimeout }).describe('reply only once the work has settled (see sessions.wait)');
/** Where a wait's lines begin. A client that starts work and waits on it in two requests (the
 *  CLI does, so that a wait can go on with the next host when its host is lost) says where the
 *  work's output began, or the output written between the two would be missing. */
const WaitSince = z
  .union([z.literal('start'), z.number().int().min(-1)], { error: "'start', or a mark sessions.send answered (a whole number, -1 or more)" })
  .describe(
    "'start': the session's first row (a session just spawned or run); a number: the mark sessions.send answered; default: where the output stood when the wait began",
  );
/** The grid a session starts at, before a view attaches and sets its own (the frame wire's bounds). */
const GridSize = {
  cols: z.number().int().min(1).max(MAX_COLS).optional().describe('columns until a view attaches (default 80)'),
  rows: z.number().int().min(1).max(MAX_ROWS).optional().describe('rows until a view attaches (default 24)'),
};
const ParentRef = SessionRef.describe("the session asking (its TERMIO_SESSION): recorded as the new session's parent");

/** What became of a child that tells its parent (spawn notifyParent): done, failed (attention with
 *  a failure reason), needsYou (attention with a question), exited (its program ended first). */
export const ChildNoticeKindSchema = z.enum(['done', 'failed', 'needsYou', 'exited']);
export type ChildNoticeKind = z.infer<typeof ChildNoticeKindSchema>;

/** A child's notice to its parent: the line typed into the parent once it waits for input. */
export const ChildNoticeSchema = z.strictObject({
  child: z.string(),
  parent: z.string(),
  kind: ChildNoticeKindSchema,
  text: z
    .string()
    .describe('one line, typed into the parent and entered: "[termio] child … is done; its last line: "…". Read it with: termio sessions read ID"'),
  at: z.iso.datetime().describe('when the child finished'),
});
export type ChildNotice = z.infer<typeof ChildNoticeSchema>;

/** The verbs and their arguments. Unknown argument names are rejected, so typos surface at once. */
export const ControlArgsSchemas = {
  ping: z.strictObject({}),
  version: z.strictObject({}),
  'sessions.list': z.strictObject({}),
  'sessions.watch': z.strictObject({}),
  'sessions.read': z.strictObject({
    id: SessionRef,
    lines: z.number().int().min(1).max(MAX_READ_LINES).optional().describe('only the last N non-empty rows of the screen'),
    transcript: z.boolean().optional().describe("read the agent's transcript file instead of the screen (its last N lines with lines)"),
    viewport: z.boolean().optional().describe('the rows shown where the session is scrolled back to, rather than the live screen'),
  }),
  'sessions.send': z.strictObject({
    id: SessionRef,
    text: z.string().describe('typed into the session as is (bounded by the frame size)'),
    enter: z
      .boolean()
      .optional()
      .describe(
        'then press Return (a real \\r, sent as its own keystroke) once the program drew the text; not pressed (notReady) when it drew nothing of a paste',
      ),
    wait: WaitSpec.optional().describe('reply once the turn this input started has ended'),
  }),
  'sessions.spawn': z.strictObject({
    agent: z.string().min(1).max(MAX_ID_CHARS).optional().describe('manifest id; omitted = the login shell'),
    cwd: AbsolutePath.optional().describe("omitted = the user's home folder"),
    bypass: z.boolean().optional().describe("append the agent's permission-bypass flag"),
    title: z.string().max(MAX_TITLE_CHARS).optional(),
    prompt: z.string().min(1).optional().describe('typed and entered once the agent is ready for input, never before'),
    worktree: WorktreeChoiceSchema.optional(),
    parent: ParentRef.optional(),
    notifyParent: z
      .boolean()
      .optional()
      .describe('tell the parent when the new session is done, fails, needs a person or ends: a line typed into it once it waits for input'),
    wait: WaitSpec.optional().describe("reply once the first prompt's turn has ended (without a prompt: once the agent is ready)"),
    machine: MachineRef.optional(),
    ...GridSize,
  }),
  'sessions.run': z.strictObject({
    argv: z
      .array(z.string().refine((a) => !a.includes('\0'), { message: 'must not contain NUL' }))
      .min(1)
      .max(MAX_ARGV)
      .describe('the command and its arguments, run as is (no shell)'),
    cwd: AbsolutePath.optional().describe("omitted = the user's home folder"),
    title: z.string().max(MAX_TITLE_CHARS).optional(),
    worktree: WorktreeChoiceSchema.optional(),
    parent: ParentRef.optional(),
    wait: WaitSpec.optional().describe('reply once the command has exited'),
    machine: MachineRef.optional(),
    ...GridSize,
  }),
  'sessions.wait': z.strictObject({
    id: SessionRef,
    until: WaitUntilSchema.optional().describe('default: done'),
    timeoutMs: WaitTimeout,
    since: WaitSince.optional(),
  }),
  'app.notify': z.strictObject({
    session: SessionRef.optional().describe('the session to jump to when the notification is clicked (one not open: none)'),
    title: z.string().max(MAX_TITLE_CHARS).optional().describe("default: the session's agent name"),
    text: z.string().min(1).max(MAX_NOTIFY_CHARS),
  }),
  'sessions.focus': z.strictObject({ id: SessionRef }),
  'sessions.next': z
    .strictObject({ focus: z.boolean().optional().describe("also bring that session's tab to the front") })
    .describe('the session waiting longest for you (the head of the attention queue), else the one that finished most recently'),
  'sessions.handled': z
    .strictObject({ id: SessionRef })
    .describe('take a waiting session off the attention queue without answering it (its state stays attention)'),
  'sessions.close': z.strictObject({
    id: SessionRef,
    worktree: z.enum(['keep', 'remove']).optional().describe("a worktree session's worktree: kept (default) or removed"),
    force: z.boolean().optional().describe('remove it even with uncommitted or unmerged work'),
  }),
  'sessions.why': z.strictObject({ id: SessionRef }).describe('why the session is in its state: channel, rule or event, when, health notes'),
  'sessions.question': z.strictObject({ id: SessionRef }).describe('the question the session asks while it needs you, with its choices; remembered as read'),
  'sessions.answer': z.strictObject({
    id: SessionRef,
    choice: z.string().min(1).max(MAX_CHOICE_CHARS).describe("a choice's number (1 = the first), its label or a unique prefix, or its key"),
    question: z.string().min(1).max(MAX_ID_CHARS).optional().describe('the question id that was read; default: the one `sessions.question` last gave'),
    force: z.boolean().optional().describe('answer whatever is asked now, even if it is not the question that was read'),
  }),
  'app.open': z.strictObject({ dir: AbsolutePath.describe('a folder to open as a new session') }),
  'app.activate': z.strictObject({}).describe('show a window (a second launch hands over to the running app this way)'),
  ...WorktreeArgsSchemas,
  ...ReviewCommentArgsSchemas,
  ...FanoutArgsSchemas,
  ...HistoryArgsSchemas,
  ...SettingsArgsSchemas,
} as const;

export type ControlVerb = keyof typeof ControlArgsSchemas;
export const CONTROL_VERBS = Object.keys(ControlArgsSchemas) as ControlVerb[];
export type ControlArgs<V extends ControlVerb> = z.infer<(typeof ControlArgsSchemas)[V]>;

/** Correlates a reply with its request; the client picks it, the server echoes it. */
const Seq = z.union([z.number().int(), z.string().max(MAX_ID_CHARS)]);

export const ControlRequestEnvelopeSchema = z.strictObject({
  v: z.number().int().describe('protocol version (CONTROL_PROTOCOL_VERSION)'),
  seq: Seq.optional(),
  verb: z.string().max(64),
  args: z.record(z.string(), z.unknown()).optional(),
  secret: z
    .string()
    .max(MAX_SECRET_CHARS)
    .optional()
    .describe("the caller's TERMIO_SESSION_SECRET when it runs inside a Termio session: the app then knows which session asks"),
});

export type ControlRequest = { [V in ControlVerb]: { v: number; seq?: number | string; verb: V; args: ControlArgs<V>; secret?: string } }[ControlVerb];

// ---- replies -------------------------------------------------------------------------------

export const ControlErrorCodeSchema = z.enum([
  'badFrame', // not JSON, or not an object
  'frameTooLarge', // longer than MAX_FRAME_CHARS; the connection is closed after this reply
  'badRequest', // a known verb with wrong or missing arguments
  'unknownVerb',
  'unsupportedVersion',
  'noSuchSession',
  'ambiguousSession', // the prefix matches more than one session
  'sessionExited', // sessions.send to a session whose program has ended
  'noTranscript', // sessions.read --transcript: none is known, or the file cannot be read
  'spawnFailed', // missing binary, bad cwd, unknown agent: the message says which
  'badDirectory', // app.open / spawn cwd that is not an existing folder
  'notReady', // spawn --prompt: the agent never became ready for input, or never showed the prompt, so it was not submitted; send --enter: the program showed nothing of the text, so Return was not pressed
  'busy', // too many connections; try again
  'forbidden', // not allowed from where the request comes (e.g. --bypass from a session without it)
  'noSuchMachine', // --machine NAME that is not a saved machine
  'machineUnreachable', // the session's machine is not connected now; the message says why
  'noQuestion', // sessions.answer: the session asks nothing now
  'questionChanged', // sessions.answer: another question is asked than the one read (the message quotes it)
  'noSuchChoice', // sessions.answer: no choice has that number, label or key
  'alreadyAnswered', // sessions.answer: this question was answered already (force sends again)
  'internal', // a bug in the app, reported with its message
  ...WORKTREE_ERROR_CODES,
  ...HISTORY_ERROR_CODES,
  ...REVIEW_COMMENT_ERROR_CODES,
  ...FANOUT_ERROR_CODES,
  ...SETTINGS_ERROR_CODES,
]);
export type ControlErrorCode = z.infer<typeof ControlErrorCodeSchema>;

export const ControlErrorSchema = z.strictObject({ code: ControlErrorCodeSchema, message: z.string() });
export type ControlError = z.infer<typeof ControlErrorSchema>;

/** What a host verb handler answers: its result, or the error the reply carries. Every verb table
 *  in the host (sessions, worktrees, history, machines) answers in this one shape. */
export type Outcome = { ok: true; result: unknown } | { ok: false; code: ControlErrorCode; message: string };

export const VersionResultSchema = z.strictObject({
  app: z.string().describe('the app version'),
  protocol: z.number().int(),
  pid: z.number().int(),
});

export const WaitOutcomeSchema = z.enum(['settled', 'timeout', 'attention', 'closed', 'notReady']);
export type WaitOutcome = z.infer<typeof WaitOutcomeSchema>;

export const WaitResultSchema = z.strictObject({
  id: z.string(),
  until: WaitUntilSchema,
  outcome: WaitOutcomeSchema.describe(
    'settled: reached; timeout; attention: the session needs the user (waiting for anything else); closed: the session was closed; notReady: spawn --prompt gave up',
  ),
  session: SessionInfoSchema.nullable().describe('the session when the wait ended (null once closed)'),
  waitedMs: z.number().int(),
  lines: z.array(z.string()).describe('lines the program wrote since the wait began (scrollback and screen; the screen for full-screen programs)'),
  screen: z.array(z.string()).describe('the visible screen when the wait ended, trailing blank rows dropped (the question, on attention)'),
});
export type WaitResult = z.infer<typeof WaitResultSchema>;

export const ControlResultSchemas = {
  ping: z.strictObject({ pong: z.literal(true), protocol: z.number().int() }),
  version: VersionResultSchema,
  'sessions.list': z.strictObject({ sessions: z.array(SessionInfoSchema) }),
  'sessions.watch': z.strictObject({ sessions: z.array(SessionInfoSchema) }).describe('the snapshot; events follow'),
  'sessions.read': z.strictObject({
    id: z.string(),
    lines: z.array(z.string()),
    cols: z.number().int(),
    rows: z.number().int(),
    transcript: z.string().optional().describe('with transcript: the file the lines come from'),
  }),
  'sessions.send': z.strictObject({
    id: z.string(),
    mark: z.number().int().optional().describe('without wait: where the output stood before the text was typed, for a sessions.wait since it'),
    wait: WaitResultSchema.optional(),
  }),
  'sessions.spawn': z.strictObject({ id: z.string(), session: SessionInfoSchema, wait: WaitResultSchema.optional() }),
  'sessions.run': z.strictObject({ id: z.string(), session: SessionInfoSchema, wait: WaitResultSchema.optional() }),
  'sessions.wait': WaitResultSchema,
  'app.notify': z.strictObject({ shown: z.literal(true) }),
  'sessions.focus': z.strictObject({ id: z.string() }),
  'sessions.next': z.strictObject({
    session: SessionInfoSchema.nullable().describe('null: no session waits and none is done'),
    reason: z.enum(['waiting', 'done', 'none']).describe('waiting: the head of the attention queue; done: none waits, the most recently done'),
    queue: z.array(z.string()).describe('the ids of the attention queue, longest waiting first'),
    focused: z.boolean().describe('its tab was asked to come to the front (focus, and a session was found)'),
  }),
  'sessions.handled': z.strictObject({ id: z.string(), wasWaiting: z.boolean().describe('it was in the attention queue until now') }),
  'sessions.close': z.strictObject({ id: z.string(), worktree: z.string().optional().describe('what became of its worktree') }),
  'sessions.why': z.strictObject({
    id: z.string(),
    state: SessionStateSchema,
    since: z.iso.datetime(),
    channel: z.string().describe('hooks, titleStatus, status, exit, focus or start'),
    rule: z.string().optional().describe('the title or screen regex that matched'),
    event: z.string().optional().describe('the hook event, or what happened'),
    at: z.iso.datetime().describe('when that evidence arrived'),
    health: z.array(z.string()).describe('notes such as "hooks not reporting" or "stalled"'),
    failure: FailureInfoSchema.optional().describe('the failure the session stopped on (API error, login, usage limit, bad exit); its state is attention'),
    exited: z
      .strictObject({ exitCode: z.number().int(), signal: z.number().int().optional() })
      .nullable()
      .optional()
      .describe('how the program ended, null while it runs'),
    tool: z.string().optional().describe('the tool the latest hook report named (manifest hooks.tool), e.g. "Bash"'),
    transcript: z.string().optional().describe('the transcript file the hooks reported (manifest hooks.capturesTranscript)'),
    tellsParent: z.string().optional().describe('the parent the session tells when it finishes (spawn notifyParent)'),
    told: ChildNoticeSchema.optional().describe('as a parent: the notice it was typed last'),
    queued: z.array(ChildNoticeSchema).optional().describe('as a parent: notices waiting for it to wait for input, oldest first'),
  }),
  'sessions.question': z.strictObject({ id: z.string(), question: QuestionInfoSchema.nullable().describe('null: it asks nothing now') }),
  'sessions.answer': z.strictObject({
    id: z.string(),
    choice: z.string().describe('the label chosen'),
    keys: z.array(z.string()),
    question: QuestionInfoSchema,
  }),
  'app.open': z.strictObject({ id: z.string() }),
  'app.activate': z.strictObject({ shown: z.literal(true) }),
  ...WorktreeResultSchemas,
  ...ReviewCommentResultSchemas,
  ...FanoutResultSchemas,
  ...HistoryResultSchemas,
  ...SettingsResultSchemas,
} as const satisfies Record<ControlVerb, z.ZodType>;
export type ControlResult<V extends ControlVerb> = z.infer<(typeof ControlResultSchemas)[V]>;

export const WatchEventSchema = z.strictObject({
  kind: z
    .enum(['added', 'removed', 'state', 'stall', 'childFinished'])
    .describe('stall: the session started or stopped being stalled (see stalledSince); childFinished: a child that tells its parent finished (see notice)'),
  session: SessionInfoSchema.describe('the session the event is about (on childFinished, the child)'),
  previous: SessionStateSchema.optional().describe('the state before, on kind "state"'),
  notice: ChildNoticeSchema.optional().describe('on kind "childFinished": what its parent is told'),
});
export type WatchEvent = z.infer<typeof WatchEventSchema>;

const ReplyBase = { v: z.number().int(), seq: Seq.optional() };
export const ControlOkReplySchema = z.strictObject({ ...ReplyBase, ok: z.literal(true), result: z.unknown() });
export const ControlErrorReplySchema = z.strictObject({ ...ReplyBase, ok: z.literal(false), error: ControlErrorSchema });
/** Streamed after the `sessions.watch` reply, one per change, with the watch request's seq. */
export const ControlEventReplySchema = z.strictObject({ ...ReplyBase, ok: z.literal(true), event: WatchEventSchema });
export const ControlReplySchema = z.union([ControlOkReplySchema, ControlErrorReplySchema, ControlEventReplySchema]);
export type ControlReply = z.infer<typeof ControlReplySchema>;

export function okReply(seq: number | string | undefined, result: unknown): ControlReply {
  return seq === undefined ? { v: CONTROL_PROTOCOL_VERSION, ok: true, result } : { v: CONTROL_PROTOCOL_VERSION, seq, ok: true, result };
}

export function errorReply(seq: number | string | undefined, code: ControlErrorCode, message: string): ControlReply {
  const error = { code, message };
  return seq === undefined ? { v: CONTROL_PROTOCOL_VERSION, ok: false, error } : { v: CONTROL_PROTOCOL_VERSION, seq, ok: false, error };
}

export function eventReply(seq: number | string | undefined, event: WatchEvent): ControlReply {
  return seq === undefined ? { v: CONTROL_PROTOCOL_VERSION, ok: true, event } : { v: CONTROL_PROTOCOL_VERSION, seq, ok: true, event };
}

// ---- parsing ------------------------------------------------------------------------------

export type ParsedRequest = { ok: true; request: ControlRequest } | { ok: false; reply: ControlReply };

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(request)'}: ${i.message}`)
    .join('; ');
}

/** One frame's text → a validated request, or the error reply that says what is wrong with it. */
export function parseRequest(text: string): ParsedRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reply: errorReply(undefined, 'badFrame', 'the frame is not JSON') };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, reply: errorReply(undefined, 'badFrame', 'a request must be a JSON object') };
  }
  const seqCandidate = Seq.safeParse((raw as { seq?: unknown }).seq);
  const seq = seqCandidate.success ? seqCandidate.data : undefined;
  const envelope = ControlRequestEnvelopeSchema.safeParse(raw);
  if (!envelope.success) {
    return { ok: false, reply: errorReply(seq, 'badRequest', describeIssues(envelope.error)) };
  }
  const { v, verb, args, secret } = envelope.data;
  if (v !== CONTROL_PROTOCOL_VERSION) {
    return {
      ok: false,
      reply: errorReply(seq, 'unsupportedVersion', `protocol version ${v} is not supported (this app speaks ${CONTROL_PROTOCOL_VERSION})`),
    };
  }
  if (!Object.hasOwn(ControlArgsSchemas, verb)) {
    return { ok: false, reply: errorReply(seq, 'unknownVerb', `unknown verb '${verb}' (known: ${CONTROL_VERBS.join(', ')})`) };
  }
  const schema = ControlArgsSchemas[verb as ControlVerb];
  const parsedArgs = schema.safeParse(args ?? {});
  if (!parsedArgs.success) {
    return { ok: false, reply: errorReply(seq, 'badRequest', `${verb}: ${describeIssues(parsedArgs.error)}`) };
  }
  const request = { v, verb, args: parsedArgs.data, seq, secret } as ControlRequest;
  return { ok: true, request };
}
