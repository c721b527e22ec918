// What the page says, as pure functions (tested without a browser): the tab title (the tray's
// aggregate), state words, time in state, sessions grouped by folder, and which terminal
// output is the user's typing rather than the browser terminal's own answers to queries.
import type { PageSession } from '../../protocol/companion';
import type { SessionState } from '../../protocol/status/sessionState';

export const STATE_WORDS: Record<SessionState, string> = { attention: 'Needs you', working: 'Working', done: 'Done', idle: 'Idle' };
const URGENCY: Record<SessionState, number> = { attention: 3, working: 2, done: 1, idle: 0 };

/** The most urgent state of all sessions (what the tray icon shows). */
export function aggregate(sessions: readonly PageSession[]): SessionState {
  let best: SessionState = 'idle';
  for (const s of sessions) if (URGENCY[s.state] > URGENCY[best]) best = s.state;
  return best;
}

/** The tab title: "2 need you · Termio", "1 working · Termio", or "Termio". */
export function pageTitle(sessions: readonly PageSession[]): string {
  const n = (st: SessionState): number => sessions.filter((s) => s.state === st).length;
  const attention = n('attention');
  if (attention) return `${attention} need${attention === 1 ? 's' : ''} you · Termio`;
  const working = n('working');
  if (working) return `${working} working · Termio`;
  return 'Termio';
}

/** Time in state with seconds, since a phone shows few rows: "12s", "4m 05s", "2h 10m", "3d". */
export function timeInState(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d`;
}

/** Sessions by folder label, in the order folders first appear. */
export function byFolder(sessions: readonly PageSession[]): Array<{ folder: string; sessions: PageSession[] }> {
  const groups = new Map<string, PageSession[]>();
  for (const s of sessions) groups.set(s.folder, [...(groups.get(s.folder) ?? []), s]);
  return [...groups].map(([folder, list]) => ({ folder, sessions: list }));
}

/** Sessions needing the user, the longest waiting first. */
export function needsYou(sessions: readonly PageSession[]): PageSession[] {
  return sessions.filter((s) => s.state === 'attention').sort((a, b) => a.stateSince - b.stateSince);
}

/**
 * Whether data the browser terminal emitted is its own answer to a query in the stream (device
 * attributes, cursor position, mode and status reports, focus reports): the host's emulator
 * answers those already, so the page must not send them again. Keys and pastes never look like
 * these.
 */
export function isTerminalReply(data: string): boolean {
  /* eslint-disable no-control-regex -- escape sequences are what this recognises */
  return /^\x1b\[[?>=]?[\d;]*c$/.test(data) // device attributes
    || /^\x1b\[\??\d+(;\d+)?[Rn]$/.test(data) // cursor position, device status
    || /^\x1b\[\??[\d;]+\$y$/.test(data) // mode reports
    || /^\x1b\[[IO]$/.test(data) // focus in/out: the page's focus is not the session's
    || /^\x1bP[\s\S]*\x1b\\$/.test(data) // DCS answers (DECRQSS)
    || /^\x1b\][\d;]+;(rgb:|[\s\S]*)[\s\S]*(\x07|\x1b\\)$/.test(data); // OSC colour answers
  /* eslint-enable no-control-regex */
}
