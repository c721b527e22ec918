// The agents as the user chooses among them: picker order (theirs from Settings first, then the
// manifests'), which are enabled, each one's name. Shared by the host and the app, which both
// read the same catalog and settings files; a new order is written by the host (the app asks it).
import { movedOrder, pickerOrder } from './agentOrder';
import type { AgentCatalog, CatalogEntry } from './catalog';
import { TERMINAL_AGENT_ID } from './agentIds';
import type { Settings, SettingsFile } from './settingsFile';

export class AgentChoices {
  constructor(
    private readonly catalog: AgentCatalog,
    private readonly settings: SettingsFile,
  ) {}

  /** Every agent in picker order: the user's order from Settings first, then the manifests'. */
  ordered(): CatalogEntry[] {
    return pickerOrder(this.catalog.list(), this.settings.settings.agents);
  }

  /** Agents the user has not disabled in Settings, in picker order. */
  enabled(): CatalogEntry[] {
    const prefs = this.settings.settings.agents;
    return this.ordered().filter((e) => prefs[e.id]?.enabled !== false);
  }

  /** The `agents` setting with an agent moved up (-1) or down (+1) in the picker, the whole order
   *  in it so one write saves it; null when it cannot move that way. */
  moved(id: string, delta: -1 | 1): Settings['agents'] | null {
    const ids = movedOrder(
      this.ordered().map((e) => e.id),
      id,
      delta,
    );
    if (!ids) return null;
    const agents = { ...this.settings.settings.agents };
    ids.forEach((agentId, order) => (agents[agentId] = { ...agents[agentId], order }));
    return agents;
  }

  /** The entry to launch for a request: its agent, or the plain Terminal. */
  get(id: string | null | undefined): CatalogEntry | undefined {
    return this.catalog.get(id ?? TERMINAL_AGENT_ID);
  }

  name(id: string | null | undefined): string {
    return this.get(id)?.manifest.name ?? id ?? 'Terminal';
  }
}
