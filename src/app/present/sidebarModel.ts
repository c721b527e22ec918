// What the window's sidebar and the tray menu show, as plain data: sessions grouped by project
// folder, each with its display title, state and time in state; and the urgency order the tray
// uses. The Qt widgets only draw this, so every rule here is tested without a display.
import { attentionQueue, queueFirst } from '../../protocol/attentionQueue';
import { STATE_PRIORITY, type SessionState } from '../../protocol/status/sessionState';

export interface SessionSummary {
  id: string;
  agentId: string | null;
  cwd: string;
  /** A rename or spawn title, else the prompt title a hook reported, else the terminal title. */
  title: string;
  state: SessionState;
  stateSince: number;
  /** Since when it waits for you (the attention queue, src/protocol/attentionQueue.ts); null or absent: it does not. */
  waitingSince?: number | null;
  createdAt: number;
  exited?: { exitCode: number; signal?: number } | null;
  /** The agent's icon (an SVG or PNG file), when the catalog has one. */
  iconFile?: string;
  /** The manifest's icon tint, if any. */
  iconTint?: string;
  /** The session that started this one (termio sessions spawn/run from inside it). */
  parentId?: string | null;
  /** Working with no output and no hook report for longer than the stall setting. */
  stalled?: boolean;
  /** The percentage of an active OSC 9;4 progress report (manifest `progressStatus`). */
  progress?: number;
  /** The saved machine that runs it; null or absent for this one. */
  machine?: string | null;
  /** While its machine is away: what to say instead of the live state ("reconnecting in 4 s"). */
  away?: string;
  /** The git worktree it works in: its branch, its repository's main checkout, files changed. */
  worktree?: { branch: string; repo: string; changed: number | null };
  /** It stopped on a failure: the reason ("API error 401: log in again"); its state is attention. */
  failure?: string;
}

export interface SidebarRow extends SessionSummary {
  agentName: string;
  /** The title shown: the session's own, else the agent's name. */
  label: string;
  needsYou: boolean;
  /** Its parent is listed right above it in the same group: drawn indented under it. */
  nested: boolean;
}

export interface SidebarGroup {
  /** The saved machine whose folder it is; null or absent for this one. */
  machine?: string | null;
  folder: string;
  /** The folder's name, with enough of its parent to tell two same-named folders apart. */
  label: string;
  rows: SidebarRow[];
}

/** attention beats working beats done beats idle (ATP "Status"; the tray's aggregate), as the status engine ranks them. */
export const stateUrgency = Object.fromEntries(STATE_PRIORITY.map((s, i) => [s, STATE_PRIORITY.length - 1 - i])) as Record<SessionState, number>;

export function aggregateState(states: Iterable<SessionState>): SessionState {
  let best: SessionState = 'idle';
  for (const s of states) if (stateUrgency[s] > stateUrgency[best]) best = s;
  return best;
}

function splitPath(p: string): string[] {
  return p.split('/').filter(Boolean);
}

/** Shortest distinct labels for folders: 'api', or 'work/api' and 'play/api' when names clash. */
export function folderLabels(folders: string[], home: string): Map<string, string> {
  const out = new Map<string, string>();
  const unique = [...new Set(folders)];
  const depth = new Map(unique.map((f) => [f, 1]));
  const labelOf = (f: string) => {
    if (f === home) return '~';
    const parts = splitPath(f);
    if (parts.length === 0) return '/';
    return parts.slice(-(depth.get(f) ?? 1)).join('/');
  };
  for (let round = 0; round < 8; round++) {
    const byLabel = new Map<string, string[]>();
    for (const f of unique) byLabel.set(labelOf(f), [...(byLabel.get(labelOf(f)) ?? []), f]);
    let clash = false;
    for (const group of byLabel.values()) {
      if (group.length < 2) continue;
      for (const f of group) {
        if ((depth.get(f) ?? 1) < splitPath(f).length) {
          depth.set(f, (depth.get(f) ?? 1) + 1);
          clash = true;
        }
      }
    }
    if (!clash) break;
  }
  for (const f of unique) out.set(f, labelOf(f));
  return out;
}

/**
 * Groups in order of their first session; rows in creation order (stable while you work), except
 * that a session started by another one in the same folder comes right under it, nested. A
 * worktree session is grouped under its repository, beside the sessions in the main checkout.
 * With `needsYouFirst` (the sessions.needsYouFirst setting), the attention queue leads: in each
 * folder its sessions come first, longest waiting on top (not nested), and the folders with one
 * come before the others, the one with the longest wait first.
 */
export function buildSidebar(
  sessions: SessionSummary[],
  agentName: (id: string | null) => string,
  home: string,
  opts: { needsYouFirst?: boolean } = {},
): SidebarGroup[] {
  // Labels are told apart per machine: two machines may well have the same folder names.
  const labels = new Map<string, Map<string, string>>();
  for (const m of new Set(sessions.map((s) => s.machine ?? null))) {
    labels.set(
      m ?? '',
      folderLabels(
        sessions.filter((s) => (s.machine ?? null) === m).map((s) => s.worktree?.repo ?? s.cwd),
        m === null ? home : '',
      ),
    );
  }
  const groups = new Map<string, SidebarGroup>();
  for (const s of [...sessions].sort((a, b) => a.createdAt - b.createdAt)) {
    const machine = s.machine ?? null;
    const folder = s.worktree?.repo ?? s.cwd;
    const key = `${machine ?? ''}\0${folder}`;
    let g = groups.get(key);
    if (!g) {
      g = { machine, folder, label: labels.get(machine ?? '')?.get(folder) ?? folder, rows: [] };
      groups.set(key, g);
    }
    const name = agentName(s.agentId);
    const row = { ...s, agentName: name, label: s.title.trim() || name, needsYou: s.state === 'attention', nested: false };
    const parentAt = s.parentId ? g.rows.findIndex((r) => r.id === s.parentId) : -1;
    if (parentAt === -1) {
      g.rows.push(row);
      continue;
    }
    // After the parent and the children it already has.
    let at = parentAt + 1;
    while (at < g.rows.length && g.rows[at]!.nested && g.rows[at]!.parentId === s.parentId) at++;
    g.rows.splice(at, 0, { ...row, nested: true });
  }
  // This machine's folders first, then each other machine's, by name; each in order of its first session.
  const order = (m: string | null | undefined) => (m ? `\u0001${m}` : '');
  const ordered = opts.needsYouFirst ? queueLeads([...groups.values()]) : [...groups.values()];
  return ordered.sort((a, b) => (order(a.machine) < order(b.machine) ? -1 : order(a.machine) > order(b.machine) ? 1 : 0));
}

/** The attention queue first: in each group, and the groups by their longest wait. */
function queueLeads(groups: SidebarGroup[]): SidebarGroup[] {
  const facts = (r: SidebarRow) => ({ ...r, waitingSince: r.waitingSince ?? null });
  const led = groups.map((g) => {
    const queue = new Set(attentionQueue(g.rows.map(facts)).map((r) => r.id));
    const rows = queueFirst(g.rows.map(facts)).map((r) => (queue.has(r.id) ? { ...r, nested: false } : r));
    return { group: { ...g, rows }, head: queue.size ? (rows[0]!.waitingSince as number) : Infinity };
  });
  return led.sort((a, b) => a.head - b.head || 0).map((x) => x.group);
}

/** Most urgent first, then the longest waiting first (tray menu order). */
export function byUrgency<T extends { state: SessionState; stateSince: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => stateUrgency[b.state] - stateUrgency[a.state] || a.stateSince - b.stateSince);
}

/** Compact time in state: 'now', '42s', '5m', '2h', '3d'. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Time in state with seconds, where few rows change (the phone page): "12s", "4m 05s", "2h 10m", "3d". */
export function formatDurationWithSeconds(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * Time in state for the window's sidebar: "now" for the first minute, then as formatDuration.
 * Seconds would change every visible row's text every second, and each such change repaints
 * the list (45-60 ms with 50 sessions here); the why strip under the list keeps the seconds for
 * the session you are looking at.
 */
export function formatAge(ms: number): string {
  return ms < 60_000 ? 'now' : formatDuration(ms);
}

/** What a session that stopped on a failure is called where a state's name would be. */
export const FAILED_LABEL = 'Stopped';

/** A failure's reason after the word "Stopped": "usage limit, resets 14:00", "API error 401: log in again". */
export function afterStopped(reason: string): string {
  return reason.replace(/^stopped:\s*/, '');
}

/** A failed session's state in words: "Stopped: usage limit, resets 14:00", "Stopped: exited with code 1". */
export function failedText(reason: string): string {
  return `${FAILED_LABEL}: ${afterStopped(reason)}`;
}

export const stateLabel: Record<SessionState, string> = {
  attention: 'Needs you',
  working: 'Working',
  done: 'Done',
  idle: 'Idle',
};
