// What the page says, as pure functions (tested without a browser): the tab title, sessions
// grouped by folder, and which terminal output is the user's typing rather than the browser
// terminal's own answers to queries. State words, urgency and durations are the app's own
// (src/app/present/sidebarModel.ts), so the page and the window never disagree.
import { queueFirst } from '../../protocol/attentionQueue';
import type { PageSession } from '../../protocol/companion';
import type { SessionState } from '../../protocol/status/sessionState';

/** The tab title: "2 need you · Termio", "1 working · Termio", or "Termio". */
export function pageTitle(sessions: readonly PageSession[]): string {
  const n = (st: SessionState): number => sessions.filter((s) => s.state === st).length;
  const attention = n('attention');
  if (attention) return `${attention} need${attention === 1 ? 's' : ''} you · Termio`;
  const working = n('working');
  if (working) return `${working} working · Termio`;
  return 'Termio';
}

/** Sessions by folder label, in the order folders first appear. */
export function byFolder(sessions: readonly PageSession[]): Array<{ folder: string; sessions: PageSession[] }> {
  const groups = new Map<string, PageSession[]>();
  for (const s of sessions) groups.set(s.folder, [...(groups.get(s.folder) ?? []), s]);
  return [...groups].map(([folder, list]) => ({ folder, sessions: list }));
}

/** Sessions needing the user: the attention queue, the longest waiting first, then those handled
 *  that still show attention (src/protocol/attentionQueue.ts). */
export function needsYou(sessions: readonly PageSession[]): PageSession[] {
  return queueFirst(sessions.filter((s) => s.state === 'attention').sort((a, b) => a.stateSince - b.stateSince));
}

/**
 * Whether data the browser terminal emitted is its own answer to a query in the stream (device
 * attributes, cursor position, mode and status reports, focus reports): the host's emulator
 * answers those already, so the page must not send them again. Keys and pastes never look like
 * these.
 */
export function isTerminalReply(data: string): boolean {
  /* eslint-disable no-control-regex -- escape sequences are what this recognises */
  return (
    /^\x1b\[[?>=]?[\d;]*c$/.test(data) || // device attributes
    /^\x1b\[\??\d+(;\d+)?[Rn]$/.test(data) || // cursor position, device status
    /^\x1b\[\??[\d;]+\$y$/.test(data) || // mode reports
    /^\x1b\[[IO]$/.test(data) || // focus in/out: the page's focus is not the session's
    /^\x1bP[\s\S]*\x1b\\$/.test(data) || // DCS answers (DECRQSS)
    /^\x1b\][\d;]+;(rgb:|[\s\S]*)[\s\S]*(\x07|\x1b\\)$/.test(data)
  ); // OSC colour answers
  /* eslint-enable no-control-regex */
}
