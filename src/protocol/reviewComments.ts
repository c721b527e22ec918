// Review comments on a worktree session's diff, sent back to its agent as one prompt: the rows of
// a unified diff with the line each belongs to, the lines a comment quotes, and the prompt they
// become. Pure, and without zod, so the CLI that words them loads none (the control verbs'
// schemas are in reviewCommentSchemas.ts).

export type DiffRowKind = 'hunk' | 'added' | 'removed' | 'context' | 'note';

/**
 * One row of a file's unified diff as the review shows it. `line` numbers the row as in the new
 * file: an added or unchanged line by its own number, a removed line by the new line that follows
 * where it was (a deleted file's lines all belong to line 1); hunk headers and notes have none.
 */
export interface DiffRow {
  text: string;
  kind: DiffRowKind;
  line: number | null;
}

/** Lines of git's header that say nothing a reader needs ("diff --git", "index 3e7..", "---", "+++"). */
function isPlumbing(line: string): boolean {
  return /^(diff --git |index |--- |\+\+\+ )/.test(line);
}

/** The rows of one file's unified diff (git's plumbing header left out). */
export function diffRows(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let next = 0;
  let inHunk = false;
  for (const text of patch.trim() === '' ? [] : patch.replace(/\n$/, '').split('\n')) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (hunk) {
      // "+c,0": no new lines; c is the line before the hunk, so what it removed sits before c + 1.
      next = Number(hunk[1]) + (hunk[2] === '0' ? 1 : 0);
      inHunk = true;
      rows.push({ text, kind: 'hunk', line: null });
    } else if (inHunk && text.startsWith('+')) rows.push({ text, kind: 'added', line: next++ });
    else if (inHunk && text.startsWith('-')) rows.push({ text, kind: 'removed', line: Math.max(next, 1) });
    else if (inHunk && text.startsWith(' ')) rows.push({ text, kind: 'context', line: next++ });
    else if (!isPlumbing(text)) rows.push({ text, kind: 'note', line: null });
  }
  return rows;
}

/** The line ranges a file's diff covers, one per hunk ("1-4, 20-31"), for an error message. */
export function coveredLines(rows: DiffRow[]): string {
  const spans: string[] = [];
  let span: [number, number] | null = null;
  const close = () => span && spans.push(span[0] === span[1] ? `${span[0]}` : `${span[0]}-${span[1]}`);
  for (const r of rows) {
    if (r.kind === 'hunk') {
      close();
      span = null;
    } else if (r.line !== null) span = span ? [span[0], Math.max(span[1], r.line)] : [r.line, r.line];
  }
  close();
  return spans.join(', ');
}

/** The diff rows a comment on lines from..to quotes, as git shows them (with their +, - or space). */
export function quotedRows(rows: DiffRow[], from: number, to: number): string[] {
  return rows.filter((r) => r.line !== null && r.line >= from && r.line <= to).map((r) => r.text);
}

/** A pending comment (its zod schema is in reviewCommentSchemas.ts, checked against this). */
export interface ReviewComment {
  file: string;
  line: number;
  to?: number | undefined;
  text: string;
  quote: string[];
}

/** Where a comment is: "src/a.ts:12" or "src/a.ts:12-15". */
export function commentPlace(c: Pick<ReviewComment, 'file' | 'line' | 'to'>): string {
  return `${c.file}:${c.line}${c.to !== undefined && c.to !== c.line ? `-${c.to}` : ''}`;
}

/** The lead line of the prompt the comments are sent as. */
export const REVIEW_PROMPT_LEAD = 'Review comments on your changes; please address each one:';

/**
 * The one prompt a session's comments are sent as: the lead line, then per comment (a blank line
 * before each) its place, the diff rows it is on quoted with "> ", and its text.
 */
export function reviewPrompt(comments: readonly ReviewComment[]): string {
  const parts = comments.map((c) => [commentPlace(c), ...c.quote.map((q) => `> ${q}`), c.text.trim()].join('\n'));
  return [REVIEW_PROMPT_LEAD, ...parts].join('\n\n');
}

/** "12" or "12-15" (the CLI's --line), or null when it is neither. */
export function parseLineRange(s: string): { line: number; to?: number } | null {
  const m = /^(\d+)(?:-(\d+))?$/.exec(s.trim());
  if (!m) return null;
  const line = Number(m[1]);
  return m[2] === undefined ? { line } : { line, to: Number(m[2]) };
}
