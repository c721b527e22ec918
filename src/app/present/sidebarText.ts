// The words of one sidebar row and its tooltip, from the row model (sidebarModel.ts). Pure, so
// every variant (nested, stalled, exited, with progress) is tested without a display.
import { afterStopped, failedText, formatAge, stateLabel, type SidebarGroup, type SidebarRow } from './sidebarModel';

const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A worktree session's changed files and branch: "3 changed · ⎇ claude/fix-login" (the count first: a long branch elides). */
export function worktreeBadge(w: NonNullable<SidebarRow['worktree']>): string {
  const changed = w.changed === null ? '' : w.changed === 0 ? 'no changes · ' : `${w.changed} changed · `;
  return `${changed}⎇ ${w.branch}`;
}

/** The row's second line: "↳ Claude · Working 42% 5m · stalled · exited 1"; a worktree session
 *  shows its count and branch instead of the agent's name (its icon says which agent it is); a
 *  session that stopped on a failure shows only the failure ("Usage limit, resets 14:00"). */
export function sidebarDetail(r: SidebarRow, now: number): string {
  // A failed row is red with a "!" and the agent's icon: its narrow line is all the reason.
  if (r.failure && !r.away) return `${r.parentId ? '↳ ' : ''}${capitalised(afterStopped(r.failure))}`;
  const exit = r.exited ? ` · exited ${r.exited.signal ? `by signal ${r.exited.signal}` : r.exited.exitCode}` : '';
  const stalled = r.stalled ? ' · stalled' : '';
  const started = r.parentId ? '↳ ' : '';
  // An agent reporting OSC 9;4 progress shows its percentage while it works.
  const progress = r.progress !== undefined && r.state === 'working' ? ` ${r.progress}%` : '';
  if (r.away) return `${started}${stateLabel[r.state]} · ${r.away}`;
  const state = `${stateLabel[r.state]}${progress} ${formatAge(now - r.stateSince)}${stalled}${exit}`;
  if (r.worktree) return `${started}${state} · ${worktreeBadge(r.worktree)}`;
  return `${started}${r.agentName} · ${state}`;
}

/** A row's tooltip: its title, folder and state, one per line ("Stopped: <the failure>" for a failed one). */
export function sidebarRowTip(r: SidebarRow): string {
  const worktree = r.worktree ? `\n${worktreeBadge(r.worktree)} (double-click to review)` : '';
  const state = r.failure ? failedText(r.failure) : stateLabel[r.state];
  return `${r.label}\n${r.machine ? `${r.machine}: ` : ''}${r.cwd}\n${state}${r.away ? ` (last known; ${r.away})` : ''}${worktree}`;
}

/** A folder heading's text (drawn in capitals) and its tooltip (the whole path). */
export function sidebarHeading(g: SidebarGroup): { text: string; tip: string } {
  // Another machine's folder says whose it is: "BOX · API".
  return { text: `${g.machine ? `${g.machine} · ` : ''}${g.label}`.toUpperCase(), tip: g.machine ? `${g.machine}: ${g.folder}` : g.folder };
}
