// How a host process starts its web companion: deps from the host's own parts. A host with a
// SettingsStore and an agent catalog passes them; one without gets a SettingsStore of the
// companion's own (watching settings.json, so Settings and hand edits still apply live).
import { homedir } from 'node:os';
import type { Logger } from '../../services/log';
import type { TermioPaths } from '../../services/paths';
import type { SessionFeed } from '../sessions/sessionFeed';
import type { SessionRecord } from '../sessions/sessionRegistry';
import { SettingsStore } from '../../services/settings';
import type { QuestionInfo } from '../../../protocol/sessionInfo';
import type { MachinesHub } from '../machines/hub';
import { hubRemoteSessions } from '../machines/hubControl';
import { startCompanion, type Companion, type CompanionDeps } from './companion';
import { companionSettingsFrom } from './companionMethods';

export interface HostCompanionOptions {
  registry: CompanionDeps['registry'];
  feedFor(record: SessionRecord): SessionFeed;
  paths: TermioPaths;
  logger: Logger;
  /** The host's settings; omitted = a store of the companion's own, disposed with it. */
  settings?: SettingsStore;
  /** The host's questions; omitted = the page shows none (a host without agents). */
  questions?: CompanionDeps['questions'];
  /** "New session" from the page; omitted = not offered. */
  launch?: CompanionDeps['launch'];
  /** The catalog's name and icon file of an agent; omitted = agents are shown by id. */
  agentInfo?: CompanionDeps['agentInfo'];
  /** The other machines' sessions (the hub); omitted = this machine's only. */
  remote?: CompanionDeps['remote'];
  /** Searching and resuming past conversations from the page; omitted = no search box. */
  history?: CompanionDeps['history'];
  /** The session shown in the focused window: not pushed to phones while it is. */
  lookingAt?: CompanionDeps['lookingAt'];
  env?: NodeJS.ProcessEnv;
}

/** The other machines as the page sees them: the hub's sessions and views, and a tap on one's
 *  question answered by its machine's host (`sessions.answer`, checked there). */
export function pageRemote(hub: MachinesHub): NonNullable<CompanionDeps['remote']> {
  const verbs = hubRemoteSessions(hub, () => undefined);
  return {
    findSession: (ref) => hub.findSession(ref),
    viewsOf: (link) => hub.viewsOf(link),
    sessions: () => hub.sessions(),
    onSessionChanged: hub.onSessionChanged,
    onSessionRemoved: hub.onSessionRemoved,
    answer: (id, question, choice) => {
      const asked = hub.session(id) ? verbs.forSession(id, 'sessions.answer', { choice: String(choice + 1), question }) : null;
      return (
        asked?.then((o) => {
          if (!o.ok) return { ok: false, code: o.code, message: o.message };
          const r = o.result as { choice: string; question: QuestionInfo };
          return { ok: true, choice: r.choice, question: r.question };
        }) ?? null
      );
    },
  };
}

export async function startHostCompanion(o: HostCompanionOptions): Promise<Companion> {
  const own = o.settings ? null : new SettingsStore(o.paths.settingsFile);
  const store = o.settings ?? (own as SettingsStore);
  own?.watch();
  const companion = await startCompanion({
    registry: o.registry,
    feedFor: o.feedFor,
    questions: o.questions || undefined,
    launch: o.launch || undefined,
    remote: o.remote || undefined,
    history: o.history || undefined,
    lookingAt: o.lookingAt || undefined,
    agentInfo: o.agentInfo ?? ((id) => ({ name: id })),
    settings: companionSettingsFrom(store),
    termioHome: o.paths.home,
    userHome: o.env?.HOME || homedir(),
    logger: o.logger,
  });
  if (own) companion.onDispose(() => own.dispose());
  return companion;
}
