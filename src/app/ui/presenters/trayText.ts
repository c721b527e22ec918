// The words of the menu-bar (tray) icon: its tooltip, and its menu as plain data (the sessions,
// most urgent first, then New Session, Show, Settings and Quit). Pure; tray.ts turns the menu
// into Qt actions and rebuilds it only when this data changed.
import { queueFirst, waitingAge } from '../../../protocol/attentionQueue';
import type { SessionState } from '../../../protocol/status/sessionState';
import type { CatalogEntry } from '../../services/catalog';
import { unavailableNote } from '../../services/programIdentity';
import { byUrgency, failedText, folderLabels, formatDuration, stateLabel, type SessionSummary } from '../../present/sidebarModel';

export interface TrayItem {
  id: string;
  label: string;
  folderLabel: string;
  agentName: string;
  state: SessionState;
  stateSince: number;
  /** Since when it waits for you (the attention queue), or null. */
  waitingSince: number | null;
  /** The agent's icon file (SVG or PNG), drawn with the state as a dot in its corner. */
  agentIcon?: string;
  /** What it asks while it needs you: the menu lists the choices under it. */
  question?: TrayQuestion;
  /** It stopped on a failure: the reason, shown instead of the state. */
  failure?: string;
}

export interface TrayQuestion {
  id: string;
  text: string;
  choices: string[];
  answered: string | null;
}

export interface TrayAgent {
  id: string;
  name: string;
  /** Why it cannot start, or null when it can (unavailableNote, as the picker says it). */
  unavailable: string | null;
  icon?: string;
}

/** What the tray needs of a session (a registry record has all of it). */
/** A session's question as the host sends it (SessionInfo.question): the parts the tray shows. */
export interface SessionQuestionFacts {
  id: string;
  text: string;
  choices: ReadonlyArray<{ label: string }>;
  answered: { label: string } | null;
}

export type TraySession = Pick<SessionSummary, 'id' | 'agentId' | 'cwd' | 'title' | 'state' | 'stateSince'> & {
  waitingSince: number | null;
  machine?: string | null;
  question?: SessionQuestionFacts | null;
  /** The status engine's account: its why names the failure a session stopped on. */
  status?: { why: { failure?: { reason: string } } } | null;
};

/** The tray's items for these sessions: folders labelled as the sidebar labels them. */
export function trayItems(
  sessions: TraySession[],
  agentName: (id: string | null) => string,
  iconOf: (id: string | null) => string | undefined,
  home: string,
): TrayItem[] {
  const labels = folderLabels(
    sessions.filter((r) => !r.machine).map((r) => r.cwd),
    home,
  );
  return sessions.map((r) => {
    const icon = iconOf(r.agentId);
    // Another machine's session says where it runs: "box:api".
    const folder = r.machine ? `${r.machine}:${r.cwd.split('/').filter(Boolean).at(-1) ?? '/'}` : (labels.get(r.cwd) ?? r.cwd);
    return {
      id: r.id,
      label: r.title.trim() || agentName(r.agentId),
      folderLabel: folder,
      agentName: agentName(r.agentId),
      state: r.state,
      stateSince: r.stateSince,
      waitingSince: r.waitingSince,
      agentIcon: icon || undefined,
      failure: r.status?.why.failure ? r.status.why.failure.reason : undefined,
      ...(r.question && r.state === 'attention'
        ? {
            question: {
              id: r.question.id,
              text: r.question.text,
              choices: r.question.choices.map((c) => c.label),
              answered: r.question.answered?.label ?? null,
            },
          }
        : {}),
    };
  });
}

/** A question's text as a menu line: one line, cut where a menu would cut it anyway. */
const MAX_MENU_QUESTION_CHARS = 80;

/** The submenu of a session that asks something: the question (disabled), its choices, then Open. */
export function trayQuestionMenu(q: TrayQuestion): { question: string; choices: Array<{ text: string; index: number; enabled: boolean }>; open: string } {
  const line = q.text.replace(/\s+/g, ' ').trim();
  const question = line.length > MAX_MENU_QUESTION_CHARS ? `${line.slice(0, MAX_MENU_QUESTION_CHARS - 1)}…` : line;
  const choices = q.choices.map((c, index) => ({ text: q.answered === c ? `${c} (answered)` : c, index, enabled: q.answered === null }));
  return { question, choices, open: 'Open Session' };
}

/** The agents the New Session submenu offers, from the enabled catalog entries (a plain terminal comes first on its own). */
export function trayAgents(
  entries: Array<Pick<CatalogEntry, 'id' | 'installed' | 'identity' | 'iconFile'> & { manifest: Pick<CatalogEntry['manifest'], 'id' | 'name' | 'command'> }>,
  terminalId: string,
): TrayAgent[] {
  return entries
    .filter((e) => e.id !== terminalId)
    .map((e) => ({ id: e.id, name: e.manifest.name, unavailable: unavailableNote(e), icon: e.iconFile || undefined }));
}

/** One session's line in the menu; the time in state is rounded (formatDuration), so the text only
 *  changes every few seconds. A session in the attention queue says how long it has waited. */
export function trayItemText(item: TrayItem, now: number): string {
  const who = item.label.includes(item.agentName) ? item.label : `${item.label} (${item.agentName})`;
  const waiting = item.waitingSince !== null ? waitingAge(now - item.waitingSince) : null;
  const state = item.failure
    ? `${failedText(item.failure)}${waiting ? `, ${waiting}` : ''}`
    : (waiting ?? `${stateLabel[item.state]} ${formatDuration(now - item.stateSince)}`);
  return `${who} — ${item.folderLabel}   ${state}`;
}

/** "Termio — 1 needs you, 2 working, 3 idle", or "Termio — no sessions". */
export function trayTooltip(counts: Record<SessionState, number>): string {
  const total = counts.attention + counts.working + counts.done + counts.idle;
  if (total === 0) return 'Termio — no sessions';
  const parts: string[] = [];
  if (counts.attention) parts.push(`${counts.attention} need${counts.attention === 1 ? 's' : ''} you`);
  if (counts.working) parts.push(`${counts.working} working`);
  if (counts.done) parts.push(`${counts.done} done`);
  if (counts.idle) parts.push(`${counts.idle} idle`);
  return `Termio — ${parts.join(', ')}`;
}

export interface TrayMenuSession {
  id: string;
  text: string;
  state: SessionState;
  /** Stopped on a failure: its dot is the failure's red. */
  failed?: boolean;
  agentIcon?: string;
  question?: TrayQuestion;
}

export interface TrayMenuAgent {
  /** null: a plain terminal. */
  agentId: string | null;
  text: string;
  enabled: boolean;
  icon?: string;
}

export interface TrayMenu {
  sessions: TrayMenuSession[];
  /** The disabled line shown instead of sessions when there are none, else null. */
  empty: string | null;
  newSession: { title: string; agents: TrayMenuAgent[] };
  show: string;
  history: string;
  usage: string;
  settings: string;
  quit: string;
  /** Quit that also ends every session (Quit alone leaves them running in the session host). */
  quitEnd: string;
  /** Equal for two menus that would look the same: the tray skips rebuilding on an equal key. */
  key: string;
}

/** The whole menu for these items (any order) and agents: the attention queue first, the one
 *  waiting longest on top, then the rest most urgent first. */
export function trayMenu(items: TrayItem[], agents: TrayAgent[], now: number): TrayMenu {
  const sessions = queueFirst(byUrgency(items)).map((i) => ({
    id: i.id,
    text: trayItemText(i, now),
    state: i.state,
    failed: i.failure ? true : undefined,
    agentIcon: i.agentIcon || undefined,
    question: i.question || undefined,
  }));
  const lines = sessions.map(
    (i) =>
      `${i.id}\u0000${i.state}${i.failed ? '!' : ''}\u0000${i.agentIcon ?? ''}\u0000${i.text}\u0000${i.question ? `${i.question.id}:${i.question.answered ?? ''}` : ''}`,
  );
  const key = `${lines.join('\n')}\u0001${agents.map((a) => `${a.id}:${a.name}:${a.unavailable ?? ''}:${a.icon ?? ''}`).join(',')}`;
  const agentEntries: TrayMenuAgent[] = [
    { agentId: null, text: 'Terminal', enabled: true },
    ...agents.map((a) => ({
      agentId: a.id,
      text: a.unavailable === null ? a.name : `${a.name} (${a.unavailable})`,
      enabled: a.unavailable === null,
      icon: a.icon || undefined,
    })),
  ];
  return {
    sessions,
    empty: sessions.length === 0 ? 'No sessions' : null,
    newSession: { title: 'New Session', agents: agentEntries },
    show: 'Show Termio',
    history: 'History…',
    usage: 'Usage…',
    settings: 'Settings…',
    quit: 'Quit Termio',
    quitEnd: 'Quit and End All Sessions',
    key,
  };
}
