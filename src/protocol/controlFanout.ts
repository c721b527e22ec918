// The control protocol's fan-out part: one prompt started in several new worktrees of one
// repository (one per agent, each on its own branch), kept by the host as a group, compared
// member by member (branch, agent, state, diff stat, the repository's test command) and resolved
// by merging one member. control.ts spreads these into its verb tables.
import * as z from 'zod';

/** Room for any real path (PATH_MAX is 4096 on Linux). */
const MAX_PATH_CHARS = 4096;
/** Session ids are UUIDs; 64 leaves room without inviting abuse. */
const MAX_ID_CHARS = 64;
/** git allows long ref names; 255 is what most file systems allow for the folder named after one. */
const MAX_REF_CHARS = 255;
/** Members of one fan-out: more agents than anyone compares side by side, few enough to bound a typo. */
export const MAX_FANOUT_AGENTS = 8;
/** Output of a test run kept for the compare view: its tail, where a runner prints its summary. */
export const MAX_TEST_OUTPUT_CHARS = 4_000;

const AbsolutePath = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), { message: 'must be an absolute path' });
const GroupRef = z.string().min(1).max(MAX_ID_CHARS).describe('a fan-out group id or a unique prefix of one');
const MemberRef = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .describe('a member by its branch, its session id (or unique prefix), or its agent id when only one member runs that agent');

export const FanoutTestSchema = z.strictObject({
  command: z.string().describe("the test command of the repository's set-up file, run with /bin/sh -c in the member's worktree"),
  passed: z.boolean().describe('it exited with status 0'),
  exitCode: z.number().int().nullable().describe('null when it was ended by a signal or its time ran out'),
  output: z.string().describe(`the last ${MAX_TEST_OUTPUT_CHARS} characters it printed (stdout and stderr)`),
  at: z.iso.datetime().describe('when it finished'),
});
export type FanoutTest = z.infer<typeof FanoutTestSchema>;

export const FanoutMemberSchema = z.strictObject({
  agent: z.string().describe('the manifest id the member runs'),
  sessionId: z.string(),
  branch: z.string(),
  path: z.string().describe("the member's worktree folder"),
  test: FanoutTestSchema.nullable().describe('the last test run, null until one ran'),
});
export type FanoutMember = z.infer<typeof FanoutMemberSchema>;

export const FanoutGroupSchema = z.strictObject({
  id: z.string(),
  repo: z.string().describe("the repository's main checkout"),
  base: z.string().describe('the branch every member started from, and the one a merge goes into'),
  prompt: z.string(),
  createdAt: z.iso.datetime(),
  members: z.array(FanoutMemberSchema).describe('in the order the agents were given'),
  merged: z.string().nullable().describe('the branch of the member merged into the base, null until one is'),
});
export type FanoutGroup = z.infer<typeof FanoutGroupSchema>;

/** A member as the compare view shows it: the group's record and what holds now. */
export const FanoutMemberStatusSchema = FanoutMemberSchema.extend({
  state: z.string().describe("the session's state (working, attention, done, idle), or closed"),
  present: z.boolean().describe('its worktree is still there (removed: false)'),
  files: z.number().int().nullable().describe('files that differ from the base; null when it cannot be read'),
  added: z.number().int().describe('lines added, text files'),
  removed: z.number().int().describe('lines removed, text files'),
  uncommitted: z.number().int().describe('files with uncommitted changes (committed first on merge)'),
});
export type FanoutMemberStatus = z.infer<typeof FanoutMemberStatusSchema>;

export const FanoutArgsSchemas = {
  'sessions.fanout': z.strictObject({
    agents: z
      .array(z.string().min(1).max(MAX_ID_CHARS))
      .min(1)
      .max(MAX_FANOUT_AGENTS)
      .describe('manifest ids, one member each, in order; a repeated id gets a branch of its own'),
    prompt: z.string().trim().min(1).describe('typed into every member once its agent is ready, never before'),
    cwd: AbsolutePath.describe('a folder in the repository (its checked-out branch is the base)'),
    base: z.string().min(1).max(MAX_REF_CHARS).optional().describe('default: the branch checked out in cwd'),
    parent: z.string().min(1).max(MAX_ID_CHARS).optional().describe("the session asking (its TERMIO_SESSION): recorded as each member's parent"),
  }),
  'sessions.fanout.list': z.strictObject({}),
  'sessions.fanout.show': z.strictObject({ group: GroupRef }),
  'sessions.fanout.test': z.strictObject({ group: GroupRef, member: MemberRef }),
  'sessions.fanout.merge': z.strictObject({
    group: GroupRef,
    member: MemberRef,
    commit: z.boolean().optional().describe("commit the member's uncommitted files first (the proposed message); without it they refuse the merge"),
  }),
} as const;

export const FanoutResultSchemas = {
  'sessions.fanout': z.strictObject({ group: FanoutGroupSchema }),
  'sessions.fanout.list': z.strictObject({ groups: z.array(FanoutGroupSchema) }),
  'sessions.fanout.show': z.strictObject({
    group: FanoutGroupSchema,
    members: z.array(FanoutMemberStatusSchema),
    testCommand: z.string().nullable().describe("the set-up file's test command; null: it names none"),
  }),
  'sessions.fanout.test': z.strictObject({ branch: z.string(), test: FanoutTestSchema }),
  'sessions.fanout.merge': z.strictObject({
    branch: z.string(),
    message: z.string().describe('what the merge did'),
    kept: z.array(z.string()).describe('the branches of the other members, left as they were'),
  }),
} as const;

export const FANOUT_ERROR_CODES = [
  'noSuchGroup', // no fan-out group matches the reference (or it is ambiguous)
  'noSuchMember', // the group has no member matching the reference (or several)
  'noTestCommand', // the repository's set-up file names no test command
] as const;
