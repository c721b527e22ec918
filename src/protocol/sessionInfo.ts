// One session as every client of the host sees it: the app, the termio command (control socket
// and host socket alike) and `termio sessions watch`. One shape, ISO times, built by one mapper in
// the host (src/app/host/sessions/sessionFacts.ts); a client may convert it for its own use, never re-map it.
import * as z from 'zod';
import { SessionWorktreeSchema } from './controlWorktrees';
import { SESSION_STATES } from './status/sessionState';
import { FAILURE_KINDS } from './status/failureReason';

/** The four states of status/sessionState.ts on the wire (one union, one name: SessionState). */
export const SessionStateSchema = z
  .enum(SESSION_STATES)
  .describe('working; attention = blocked on the user; done = finished while the user was elsewhere; idle');

const ExitSchema = z.strictObject({ exitCode: z.number().int(), signal: z.number().int().optional() });

/** Why a session stopped on a failure (src/protocol/status/failureReason.ts), ISO time. */
export const FailureInfoSchema = z.strictObject({
  kind: z.enum(FAILURE_KINDS).describe('api: the model API refused; auth: log in again; usage: a rate or usage limit; exit: the program ended badly'),
  reason: z.string().describe('one line: "API error 401: log in again", "stopped: usage limit, resets 14:00", "exited with code 1: …"'),
  resetsAt: z.iso.datetime().optional().describe('when a usage limit lifts, when the error said'),
});
export type FailureInfo = z.infer<typeof FailureInfoSchema>;

/** What the status engine last decided: the why strip's source (sessions.why says the same in words). */
export const SessionStatusInfoSchema = z.strictObject({
  state: SessionStateSchema,
  since: z.iso.datetime(),
  why: z.strictObject({
    channel: z.enum(['hooks', 'titleStatus', 'progress', 'status', 'question', 'exit', 'focus', 'start']),
    rule: z.string().optional().describe('the title or screen regex that matched'),
    event: z.string().optional().describe('the hook event, or what happened'),
    at: z.iso.datetime().describe('when that evidence arrived'),
    failure: FailureInfoSchema.optional().describe('the session stopped on this failure (its state is attention)'),
  }),
  health: z.array(z.strictObject({ code: z.enum(['hooksNotReporting', 'hooksStoppedReporting', 'stalled']), message: z.string(), since: z.iso.datetime() })),
});
export type SessionStatusInfo = z.infer<typeof SessionStatusInfoSchema>;

/** What a session that needs you asks, as the host read it (src/protocol/questions). */
export const QuestionInfoSchema = z.strictObject({
  id: z.string().describe('changes whenever the question does: answer with the one you read'),
  text: z.string().describe('the question ("Run `rm -rf build`?")'),
  context: z.string().describe('what it is about as the agent shows it (the command, the folder), or ""'),
  source: z.enum(['hook', 'screen', 'hook+screen']),
  choices: z.array(
    z.strictObject({
      label: z.string(),
      description: z.string().optional(),
      keys: z.array(z.string()).describe('the keys that choose it, in order (Enter, Escape, ArrowDown, or one character)'),
      highlighted: z.boolean(),
    }),
  ),
  askedAt: z.iso.datetime(),
  answered: z.strictObject({ label: z.string(), at: z.iso.datetime() }).nullable(),
});
export type QuestionInfo = z.infer<typeof QuestionInfoSchema>;

export const SessionInfoSchema = z.strictObject({
  id: z.string().describe('the session id, also its TERMIO_SESSION'),
  agentId: z.string().nullable().describe('the manifest id of the agent, null for a plain shell or a command'),
  cwd: z.string().describe('the folder the session was started in'),
  title: z.string().describe('the name given at spawn or rename, else the prompt title a hook reported, else the live terminal title, else ""'),
  state: SessionStateSchema,
  stateWhy: z.string().describe('which channel/rule/event put the session in its state'),
  stateSince: z.iso.datetime().describe('when the session entered its current state'),
  waitingSince: z.iso
    .datetime()
    .nullable()
    .optional()
    .describe(
      'when it began to wait for you: its place in the attention queue (src/protocol/attentionQueue.ts); null when it is not in the queue (not in attention, or handled since); absent from a host older than the queue',
    ),
  createdAt: z.iso.datetime(),
  pid: z.number().int().describe('the process id of the program in the terminal'),
  argv: z.array(z.string()).describe('the command line the session runs'),
  cols: z.number().int().describe("the session's grid now"),
  rows: z.number().int(),
  exited: ExitSchema.nullable().describe('how the program ended, null while it runs (the session stays listed until closed)'),
  parentId: z.string().nullable().describe('the session that started this one (spawn or run from inside it), else null'),
  stalledSince: z.iso.datetime().nullable().describe('working with no output and no hook report since then, for longer than the stall setting; else null'),
  bypass: z.boolean().describe("started with the agent's permission-bypass flag"),
  windowId: z.string().nullable().describe('the window whose tab it is, null for a session no window shows yet'),
  views: z.number().int().describe('views attached to it now, across every client'),
  tool: z.string().nullable().describe('the tool the latest hook report named ("Bash")'),
  progress: z.number().int().nullable().describe('OSC 9;4 progress 0-100, or null'),
  status: SessionStatusInfoSchema.nullable(),
  recovered: z.boolean().describe('relaunched from the saved state because the host that ran it was lost (killed, or the machine restarted)'),
  question: QuestionInfoSchema.nullable().describe('what it asks while it needs you, when the host could read it; else null'),
  resume: z
    .strictObject({
      family: z.string().describe('pinned, discovered, none, or unknown (the manifest is gone)'),
      boundId: z.string().nullable().describe("the agent's conversation id this tab is bound to"),
      boundFamily: z.string().nullable(),
      argv: z.array(z.string()).nullable().describe('the exact argv a relaunch would run (null: no plan)'),
      mode: z.string().nullable().describe('create, resume or fresh'),
      why: z.string(),
    })
    .optional()
    .describe('sessions.list only: how this tab would be relaunched'),
  machine: z.string().nullable().optional().describe('the saved machine it runs on (termio machines); null or absent for this one'),
  reachable: z.boolean().optional().describe('false while its machine is away: the last known state'),
  worktree: SessionWorktreeSchema.optional().describe('the git worktree the session works in (started with --worktree); absent otherwise'),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
