// The control protocol's worktree part: what a session's worktree looks like on the wire, the
// worktree choice a spawn carries, and the review verbs (diff, commit, merge, rebase, remove,
// list, prune) with their results. control.ts spreads these into its verb tables.
import * as z from 'zod';

/** Room for any real path (PATH_MAX is 4096 on Linux). */
const MAX_PATH_CHARS = 4096;
/** git allows long ref names; 255 is what most file systems allow for the folder named after one. */
const MAX_REF_CHARS = 255;
/** A commit message: a subject and a body of a few paragraphs. */
const MAX_MESSAGE_CHARS = 10_000;

export const WorktreeInfoSchema = z.strictObject({
  path: z.string().describe("the worktree's folder (the session's cwd)"),
  branch: z.string().describe('the branch checked out there'),
  base: z.string().describe('the ref it started from, merged into on review'),
});
export type WorktreeInfo = z.infer<typeof WorktreeInfoSchema>;

/** A session's worktree as every client sees it: the above, its repository and the live count. */
export const SessionWorktreeSchema = WorktreeInfoSchema.extend({
  repo: z.string().describe("the repository's main checkout (the sidebar groups its worktree sessions under it)"),
  changed: z.number().int().nullable().describe('files that differ from the base, kept current as files are saved; null until counted'),
});
export type SessionWorktree = z.infer<typeof SessionWorktreeSchema>;

export const WorktreeChoiceSchema = z
  .strictObject({
    branch: z.string().min(1).max(MAX_REF_CHARS).optional().describe('default: named after the agent and the first prompt'),
    base: z.string().min(1).max(MAX_REF_CHARS).optional().describe('default: the branch checked out in cwd'),
  })
  .describe('start in a new git worktree of the repository cwd is in, on a new branch');

/** A worktree by its session (id or prefix) or by its folder. */
const WorktreeRef = z.string().min(1).max(MAX_PATH_CHARS).describe('a session id (or unique prefix) or a worktree folder');

export const WorktreeArgsSchemas = {
  'worktrees.diff': z.strictObject({
    ref: WorktreeRef,
    stat: z.boolean().optional().describe("git's --stat summary instead of the patch"),
    file: z.string().min(1).max(MAX_PATH_CHARS).optional().describe('only this file (a path inside the worktree)'),
  }),
  'worktrees.act': z.strictObject({
    ref: WorktreeRef,
    action: z.enum(['commit', 'merge', 'rebase']),
    message: z.string().min(1).max(MAX_MESSAGE_CHARS).optional().describe('commit: default the proposed message (the first prompt)'),
  }),
  'worktrees.remove': z.strictObject({
    ref: WorktreeRef,
    force: z.boolean().optional().describe('remove even with uncommitted files or commits the base lacks (a branch with such commits is kept)'),
  }),
  'worktrees.list': z.strictObject({}),
  'worktrees.prune': z.strictObject({}),
} as const;

export const ChangedFileSchema = z.strictObject({
  path: z.string(),
  kind: z.enum(['added', 'modified', 'deleted', 'changed']),
  added: z.number().int().nullable().describe('lines added; null for a binary file'),
  removed: z.number().int().nullable(),
});
export type ChangedFileInfo = z.infer<typeof ChangedFileSchema>;

export const WorktreeStatusSchema = z.strictObject({
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  repo: z.string().describe("the repository's main checkout"),
  sessionId: z.string().nullable().describe('the session it was made for'),
  open: z.boolean().describe('that session is open'),
  present: z.boolean().describe('the folder is still a worktree of the repository'),
  uncommitted: z.number().int().describe('files with uncommitted changes, new files included'),
  unmerged: z.number().int().describe('commits the base does not have'),
  changed: z.number().int().nullable().describe('files that differ from the base'),
});
export type WorktreeStatusInfo = z.infer<typeof WorktreeStatusSchema>;

export const WorktreeResultSchemas = {
  'worktrees.diff': z.strictObject({
    worktree: WorktreeInfoSchema,
    files: z.array(ChangedFileSchema),
    text: z.string().describe('the unified diff (or the stat) against the fork point'),
    proposedMessage: z.string().describe("the commit message the review proposes (from the session's first prompt)"),
    ghCommand: z.string().nullable().describe('a `gh pr create` line when gh is on PATH'),
  }),
  'worktrees.act': z.strictObject({ message: z.string() }),
  'worktrees.remove': z.strictObject({ message: z.string() }),
  'worktrees.list': z.strictObject({ worktrees: z.array(WorktreeStatusSchema) }),
  'worktrees.prune': z.strictObject({ removed: z.array(WorktreeStatusSchema), kept: z.array(WorktreeStatusSchema) }),
} as const;

export const WORKTREE_ERROR_CODES = [
  'notAWorktree', // the session or folder has no worktree Termio made
  'worktreeRefused', // git or a check refused (the message says what and where)
  'mergeConflict', // merge or rebase would conflict; nothing was changed
  'unsavedWork', // removal refused: uncommitted files or unmerged commits (force to confirm)
] as const;
