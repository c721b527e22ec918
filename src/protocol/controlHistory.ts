// The control protocol's conversation-history part: searching the index of every agent's past
// conversations, resuming one, the index's progress, and token usage with its estimated cost.
// control.ts spreads these into its verb tables.
import * as z from 'zod';
import { MAX_ID_CHARS } from './manifestSchema';
import { MAX_CONVERSATION_ID_LENGTH } from './resumePlan';
import { SessionInfoSchema } from './sessionInfo';

const MAX_QUERY_CHARS = 500;
/** A page of results: more than a person reads, few enough to answer at once. */
const MAX_RESULTS = 200;

const AgentFilter = z.string().min(1).max(MAX_ID_CHARS).describe('only this agent (manifest id)');
const MachineFilter = z.string().min(1).max(MAX_ID_CHARS).describe('ask only this saved machine (termio machines)');
const Since = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/, { error: 'expected a date such as 2026-12-01 or an ISO time' })
  .describe('only activity from this day (or time) on');

/** A matching part of a line: where the hit is, in UTF-16 units of `text`. */
const HitSchema = z.strictObject({ start: z.number().int(), length: z.number().int() });

export const HistoryLineSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  at: z.string().nullable(),
  text: z.string().describe('the matching part of the turn'),
  hits: z.array(HitSchema),
});

export const HistoryResultSchema = z.strictObject({
  agent: z.string(),
  conversation: z.string().nullable().describe("the agent's own conversation id"),
  cwd: z.string().nullable(),
  machine: z.string().nullable().describe('the saved machine it is on; null for this one'),
  title: z.string().nullable().describe('the first prompt'),
  lastActivity: z.string().nullable(),
  snippet: z.string().describe('the best matching line'),
  lines: z.array(HistoryLineSchema).describe('the matching lines, best first (a few)'),
});
export type HistoryResult = z.infer<typeof HistoryResultSchema>;

export const HistoryProgressSchema = z.strictObject({
  indexing: z.boolean().describe('files are being read'),
  queued: z.number().int(),
  read: z.number().int().describe('files read since the host started'),
  scanned: z.boolean().describe('every store was walked once'),
  files: z.number().int(),
  conversations: z.number().int(),
});

export const USAGE_GROUPS = ['agent', 'day', 'folder', 'model'] as const;

const TokensSchema = z.strictObject({
  input: z.number().int(),
  output: z.number().int(),
  cacheRead: z.number().int(),
  cacheWrite: z.number().int(),
  cost: z.number().describe('US dollars, for the tokens of models the price table has'),
  unpriced: z.array(z.string()).describe('models without a price: their tokens count, their cost is unknown'),
});
export type UsageTokens = z.infer<typeof TokensSchema>;

export const HistoryArgsSchemas = {
  'history.search': z.strictObject({
    query: z.string().min(1).max(MAX_QUERY_CHARS).describe('words that must all occur in one turn (a trailing * matches any ending)'),
    agent: AgentFilter.optional(),
    machine: MachineFilter.optional(),
    since: Since.optional(),
    limit: z.number().int().min(1).max(MAX_RESULTS).optional().describe('at most this many conversations (default 20)'),
  }),
  'history.resume': z.strictObject({
    conversation: z.string().min(1).max(MAX_CONVERSATION_ID_LENGTH).describe("the agent's conversation id, or a unique prefix of one"),
    agent: AgentFilter.optional(),
    machine: MachineFilter.optional(),
  }),
  'history.status': z.strictObject({ machine: MachineFilter.optional() }),
  usage: z.strictObject({
    by: z.enum(USAGE_GROUPS).optional().describe('default: agent'),
    agent: AgentFilter.optional(),
    conversation: z.string().min(1).max(MAX_CONVERSATION_ID_LENGTH).optional().describe("only this conversation (the agent's id)"),
    session: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .optional()
      .describe("only the conversation the session is bound to (none yet: nothing counted): the why strip's cost"),
    machine: MachineFilter.optional(),
    since: Since.optional(),
  }),
} as const;

export const HistoryResultSchemas = {
  'history.search': z.strictObject({
    results: z.array(HistoryResultSchema).describe('best first'),
    progress: HistoryProgressSchema.describe("this machine's index: while indexing, results may be missing"),
    unreachable: z.array(z.string()).optional().describe('machines that could not be asked'),
  }),
  'history.resume': z.strictObject({
    id: z.string().describe('the session that resumes it'),
    opened: z.boolean().describe('false: it was already open in that session, which was brought to the front'),
    session: SessionInfoSchema,
  }),
  'history.status': HistoryProgressSchema,
  usage: z.strictObject({
    by: z.enum(USAGE_GROUPS),
    rows: z.array(TokensSchema.extend({ key: z.string() })).describe('largest cost first, then most tokens; by day, newest first'),
    total: TokensSchema,
    prices: z.strictObject({
      date: z.string().describe('the day the price table was read'),
      overridden: z.array(z.string()).describe("models priced by the user's settings"),
    }),
  }),
} as const;

export const HISTORY_ERROR_CODES = [
  'noSuchConversation', // history.resume: the index holds no conversation with that id
  'folderGone', // history.resume: the conversation's folder no longer exists
  'cannotResume', // history.resume: the agent's manifest has no resume by id
] as const;
