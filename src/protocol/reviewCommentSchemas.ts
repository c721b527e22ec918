// The control verbs that keep a worktree session's pending review comments in the host, and the
// shape of a comment on the wire (reviewComments.ts has the comments' pure text functions).
import * as z from 'zod';
import type { ReviewComment } from './reviewComments';

/** Room for any real path (PATH_MAX is 4096 on Linux). */
const MAX_PATH_CHARS = 4096;
/** A comment is a few paragraphs at most. */
const MAX_COMMENT_CHARS = 10_000;
/** Session ids are UUIDs; 64 leaves room without inviting abuse. */
const MAX_ID_CHARS = 64;

export const ReviewCommentSchema = z.strictObject({
  file: z.string().describe('a path inside the worktree, as the diff names it'),
  line: z.number().int().describe('the first line commented on, numbered as in the new file'),
  to: z.number().int().optional().describe('the last line, for a range'),
  text: z.string(),
  quote: z.array(z.string()).describe('the diff rows the comment is on, as they were when it was written'),
});
// The schema and the interface say the same: the compiler checks each against the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<ReviewComment, z.infer<typeof ReviewCommentSchema>> = true;
void sameShape;

const SessionRef = z.string().min(1).max(MAX_ID_CHARS).describe('a worktree session: its id or a unique prefix of one');
const CommentIndex = z.number().int().min(1).describe('a pending comment by its number in the list (1 = the first)');

export const ReviewCommentArgsSchemas = {
  'sessions.comment': z.strictObject({
    id: SessionRef,
    file: z.string().min(1).max(MAX_PATH_CHARS).describe("a file in the worktree's diff"),
    line: z.number().int().min(1).describe('a line of the diff, numbered as in the new file'),
    to: z.number().int().min(1).optional().describe('the last line of a range (default: line)'),
    text: z.string().trim().min(1).max(MAX_COMMENT_CHARS),
    replace: CommentIndex.optional().describe('edit: this comment is replaced, in its place'),
  }),
  'sessions.comments': z.strictObject({ id: SessionRef }),
  'sessions.comments.send': z.strictObject({ id: SessionRef }),
  'sessions.comments.remove': z.strictObject({ id: SessionRef, index: CommentIndex }),
} as const;

const CommentList = z.strictObject({
  id: z.string(),
  comments: z.array(ReviewCommentSchema).describe('the pending comments, in the order they will be sent'),
  sending: z.number().int().describe('comments on their way: typed as one prompt once the agent is ready for input'),
});

export const ReviewCommentResultSchemas = {
  'sessions.comment': CommentList,
  'sessions.comments': CommentList,
  'sessions.comments.send': CommentList.extend({ prompt: z.string().describe('the prompt that will be typed') }),
  'sessions.comments.remove': CommentList,
} as const;

export const REVIEW_COMMENT_ERROR_CODES = [
  'badComment', // a file not in the diff, a line outside it, a comment number not in the list, nothing to send
] as const;
