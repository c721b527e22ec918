// The words and the coloured diff of the review view: a changed file's row, the heading, the
// unified diff of one file as HTML with added and removed lines coloured (new files are all
// additions), and the messages of the actions. Pure, so it is tested without a display.
import type { ChangedFileInfo, WorktreeInfo } from '../../protocol/control';

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

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Lines of git's header before the first hunk that say nothing a reader needs ("index 3e7..", "---", "+++"). */
function isPlumbing(line: string): boolean {
  return /^(diff --git |index |--- |\+\+\+ )/.test(line);
}

/** One file's unified diff as HTML: a table of lines, additions and removals on coloured rows. */
export function diffHtml(patch: string, c: DiffColors, font: string): string {
  const rows: string[] = [];
  const cell = (bg: string, fg: string, text: string) =>
    `<tr><td style="background-color:${bg}; color:${fg}; white-space:pre; padding:0 8px;">${escapeHtml(text) || ' '}</td></tr>`;
  const lines = patch.trim() === '' ? [] : patch.replace(/\n$/, '').split('\n');
  for (const line of lines) {
    if (isPlumbing(line)) continue;
    if (line.startsWith('@@')) rows.push(cell(c.hunk.background, c.hunk.text, line));
    else if (line.startsWith('+')) rows.push(cell(c.added.background, c.added.text, line));
    else if (line.startsWith('-')) rows.push(cell(c.removed.background, c.removed.text, line));
    else if (/^(new file|deleted file|old mode|new mode|Binary files|similarity|rename )/.test(line) || line.startsWith('\\'))
      rows.push(cell('transparent', c.muted, line));
    else rows.push(cell('transparent', c.text, line));
  }
  if (rows.length === 0) rows.push(cell('transparent', c.muted, 'No differences.'));
  return `<table width="100%" cellspacing="0" cellpadding="1" style="font-family:'${font}'; font-size:12px;">${rows.join('')}</table>`;
}

/** The status line after an action: what happened, or what was refused and why. */
export function actionText(r: { ok: true; message: string } | { ok: false; message: string }): string {
  return r.ok ? `✓ ${r.message}` : `⚠ ${r.message}`;
}
