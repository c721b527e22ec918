// The words of the window's quick prompts about sessions: the jump list, the rename box, the
// question asked before closing a session that started others, and a broken manifest's message.
// Pure; the app opens these in the window's quick-open panel.
import { folderLabels, stateLabel, type SessionSummary } from './sidebarModel';

/** What the prompts need of a session (a registry record has all of it). */
export type PromptSession = Pick<SessionSummary, 'id' | 'agentId' | 'cwd' | 'title' | 'state'>;

export interface PromptItem {
  id: string;
  label: string;
  detail: string;
}

/** A session's name: its title, else its agent's name. */
export function sessionName(s: Pick<PromptSession, 'title' | 'agentId'>, agentName: (id: string | null) => string): string {
  return s.title.trim() || agentName(s.agentId);
}

export const jumpTitle = 'JUMP TO SESSION';
export const renameTitle = 'RENAME SESSION';

/** One entry per session: its name, then folder, agent and state to filter by. */
export function jumpItems(sessions: PromptSession[], agentName: (id: string | null) => string, home: string): PromptItem[] {
  const labels = folderLabels(
    sessions.map((r) => r.cwd),
    home,
  );
  return sessions.map((r) => ({
    id: r.id,
    label: sessionName(r, agentName),
    detail: `${labels.get(r.cwd) ?? r.cwd} · ${agentName(r.agentId)} · ${stateLabel[r.state]}`,
  }));
}

/** The question before closing a session that started `started` (not empty): close them too, or only it. */
export function closePrompt(
  started: Array<Pick<PromptSession, 'title' | 'agentId'>>,
  agentName: (id: string | null) => string,
): { title: string; items: PromptItem[]; hint: string } {
  const n = started.length;
  const them = n === 1 ? 'the session it started' : `the ${n} sessions it started`;
  return {
    title: `CLOSE · IT STARTED ${n} SESSION${n === 1 ? '' : 'S'}`,
    items: [
      { id: 'all', label: `Close it and ${them}`, detail: started.map((c) => sessionName(c, agentName)).join(', ') },
      { id: 'one', label: 'Close only this one', detail: `${them} ${n === 1 ? 'stays' : 'stay'} open` },
    ],
    hint: 'Enter closes, Esc keeps everything open',
  };
}

/** A manifest that failed to load: its errors (each names its file), and whether the last good one stays. */
export function catalogProblemText(p: { errors: string[]; keptLastGood?: boolean }): string {
  return `${p.errors.join('\n')}${p.keptLastGood ? ' (the last good version stays loaded)' : ''}`;
}
