// "New session" on the phone page, from the host's parts: the agents the picker offers (enabled
// and installed, in its order), the folders sessions ran in lately (live ones first, then the saved
// ones, newest first), and starting one — with its first prompt typed once the agent is ready for
// input, as `termio sessions spawn --prompt` does.
import { folderLabels } from '../../present/sidebarModel';
import type { AgentChoices } from '../../services/agentChoices';
import type { Logger } from '../../services/log';
import type { SessionRegistry } from '../sessions/sessionRegistry';
import type { SessionWaits } from '../sessions/sessionWaits';
import type { StateStore } from '../state/stateStore';
import type { CompanionDeps } from './companion';

/** The host's parts "New session" uses, each read when the page asks (the Host passes itself). */
export interface LaunchParts {
  agents: Pick<AgentChoices, 'enabled'>;
  registry: Pick<SessionRegistry, 'list' | 'spawn'>;
  readonly store: Pick<StateStore, 'state'>;
  control: { waits: Pick<SessionWaits, 'deliverPrompt'> };
  opts: { logger: Logger };
}

/** Folders offered: enough for the places one works in this week, short enough for a phone's list. */
export const MAX_PAGE_FOLDERS = 8;

export function pageLaunch(host: LaunchParts, userHome: string): NonNullable<CompanionDeps['launch']> {
  return {
    options() {
      const agents = host.agents
        .enabled()
        .filter((e) => e.installed)
        .map((e) => ({ id: e.id, name: e.manifest.name }));
      const live = host.registry
        .list()
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((r) => r.cwd);
      const saved = [...host.store.state.sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((s) => s.cwd);
      const paths = [...new Set([...live, ...saved])].slice(0, MAX_PAGE_FOLDERS);
      const labels = folderLabels(paths, userHome);
      return { agents, folders: paths.map((path) => ({ path, label: labels.get(path) ?? path })) };
    },
    async spawn(agent, cwd, prompt) {
      const r = await host.registry.spawn({ agent, cwd });
      if (!r.ok) return { ok: false, message: r.message };
      if (prompt !== undefined) {
        void host.control.waits.deliverPrompt(r.record.id, prompt).then((typed) => {
          if (!typed)
            host.opts.logger.warn('companion: the agent never became ready, or never showed its first prompt; the prompt was not submitted', {
              id: r.record.id,
            });
        });
      }
      return { ok: true, id: r.record.id };
    },
  };
}
