// How a result of the History pane reads: the matching lines as rich text with the hits marked,
// and the line of facts under its title (folder, machine, when). Pure.
import type { HistoryResult } from '../../protocol/controlHistory';
import { shortenHome } from '../../protocol/homePath';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `text` as HTML with each hit wrapped in a span of `style` (hits in UTF-16 units; overlapping or
 *  out-of-range ones are clipped, never dropped text). */
export function highlightHits(text: string, hits: { start: number; length: number }[], style: string): string {
  let out = '';
  let at = 0;
  for (const h of [...hits].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(h.start, text.length));
    const end = Math.max(start, Math.min(h.start + h.length, text.length));
    if (end === start) continue;
    out += `${escapeHtml(text.slice(at, start))}<span style="${style}">${escapeHtml(text.slice(start, end))}</span>`;
    at = end;
  }
  return out + escapeHtml(text.slice(at));
}

/** "today 14:05", "yesterday", "Dec 1", "Dec 1, 2025": when it was last used, in the local time of `now`. */
export function whenText(iso: string | null, now: Date): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const dayStart = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((dayStart(now) - dayStart(d)) / 86_400_000);
  if (days === 0) return `today ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (days === 1) return 'yesterday';
  const md = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
  return d.getFullYear() === now.getFullYear() ? md : `${md}, ${d.getFullYear()}`;
}

/** "~/code/app · on devbox · yesterday": the folder (home as ~), the machine when not this one, when. */
export function resultFacts(r: Pick<HistoryResult, 'cwd' | 'machine' | 'lastActivity'>, home: string, now: Date): string {
  return [r.cwd ? shortenHome(r.cwd, home) : 'folder unknown', r.machine ? `on ${r.machine}` : '', whenText(r.lastActivity, now)].filter(Boolean).join(' · ');
}

/** The result's heading: its first prompt on one line, cut to `max` characters. */
export function resultTitle(r: Pick<HistoryResult, 'title' | 'snippet'>, max = 90): string {
  const t = (r.title ?? r.snippet).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** What the pane says under the list: how many, and whether the index is still being read. */
export function historyStatusText(count: number, progress: { indexing: boolean; scanned: boolean; queued: number }, unreachable: string[] = []): string {
  const parts = [count === 0 ? 'No conversation matches.' : `${count} conversation${count === 1 ? '' : 's'}.`];
  if (progress.indexing || !progress.scanned) parts.push(`Still reading past conversations (${progress.queued} files to go): some may be missing.`);
  if (unreachable.length) parts.push(`Could not ask ${unreachable.join(', ')}.`);
  return parts.join(' ');
}
