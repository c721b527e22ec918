// The words and colours of the review view: a changed file's row, the heading, the colours of
// the diff's rows (added and removed lines on their backgrounds), the pending comments' rows,
// and the messages of the actions. Pure, so it is tested without a display.
import type { ChangedFileInfo, WorktreeInfo } from '../../protocol/control';
import { commentPlace, type DiffRowKind, type ReviewComment } from '../../protocol/reviewComments';

/** The diff view's colours for one appearance. */
export interface DiffColors {
  text: string;
  muted: string;
  added: { background: string; text: string };
  removed: { background: string; text: string };
  hunk: { background: string; text: string };
}

export const darkDiff: DiffColors = {
  text: '#dfe4ee',
  muted: '#8a93a6',
  added: { background: '#163a2a', text: '#b6f0cf' },
  removed: { background: '#45202a', text: '#ffc4cf' },
  hunk: { background: '#1f2a3d', text: '#9fc1ff' },
};

// Each text colour keeps WCAG AA contrast (≥ 4.5:1) on its background.
export const lightDiff: DiffColors = {
  text: '#1d222c',
  muted: '#5c6577',
  added: { background: '#dcf5e6', text: '#0d4f2c' },
  removed: { background: '#fde2e5', text: '#7c1224' },
  hunk: { background: '#e3ecfb', text: '#1f4f99' },
};

const KIND_MARK: Record<ChangedFileInfo['kind'], string> = { added: 'A', modified: 'M', deleted: 'D', changed: 'T' };

/** A file row: "M  src/app.js   +3 −1" (binary files say so). */
export function fileRowText(f: ChangedFileInfo): string {
  const counts = f.added === null ? 'binary' : `+${f.added} −${f.removed ?? 0}`;
  return `${KIND_MARK[f.kind]}  ${f.path}   ${counts}`;
}

/** The view's heading and the line under it. */
export function reviewHeading(w: WorktreeInfo, files: ChangedFileInfo[]): { title: string; detail: string } {
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const count = files.length === 0 ? 'no changes yet' : `${files.length} file${files.length === 1 ? '' : 's'} changed, +${added} −${removed}`;
  return { title: `${w.branch}  →  ${w.base}`, detail: `${count}  ·  ${w.path}` };
}

/** A diff row's colours: additions and removals on their backgrounds, hunk headers marked, notes muted. */
export function diffRowColors(kind: DiffRowKind, c: DiffColors): { background: string | null; text: string } {
  if (kind === 'added' || kind === 'removed' || kind === 'hunk') return c[kind];
  return { background: null, text: kind === 'note' ? c.muted : c.text };
}

/** A pending comment's row in the review's list: where, and the first line of what it says. */
export function commentRowText(c: ReviewComment): string {
  const first = c.text.split('\n', 1)[0] ?? '';
  return `${commentPlace(c)}  ${first}${c.text.includes('\n') ? ' …' : ''}`;
}

/** The heading over the pending comments, and the Send button's words. */
export function commentsHeading(pending: number, sending: number): { heading: string; send: string } {
  const heading =
    pending > 0
      ? `Comments for the agent (${pending})`
      : sending > 0
        ? `${sending} comment${sending === 1 ? '' : 's'} on the way to the agent`
        : 'Comments: select diff lines, press C';
  return { heading, send: pending > 0 ? `Send ${pending} to agent` : 'Send to agent' };
}

/** The status line after an action: what happened, or what was refused and why. */
export function actionText(r: { ok: true; message: string } | { ok: false; message: string }): string {
  return r.ok ? `✓ ${r.message}` : `⚠ ${r.message}`;
}
