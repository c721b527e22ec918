// The agents as the user chooses among them: picker order (theirs from Settings first, then the
// manifests'), which are enabled, each one's name, and its live-status hooks (installed or not,
// install or remove). Shared by the host and the app, which both read the same catalog and
// settings files.
import { hookStatusOf, setLiveStatus, type AgentIntegrationOptions } from './agentIntegration';
import { movedOrder, pickerOrder } from './agentOrder';
import type { AgentCatalog, CatalogEntry } from './catalog';
import type { AgentHookResult } from './hookInstaller';
import { TERMINAL_AGENT_ID } from './agentIds';
import type { SettingsStore } from './settings';

export class AgentChoices {
  constructor(
    private readonly catalog: AgentCatalog,
    private readonly settings: SettingsStore,
    private readonly integration: () => AgentIntegrationOptions,
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

  /** Moves an agent up (-1) or down (+1) in the picker, saving the whole order in one write. */
  move(id: string, delta: -1 | 1): void {
    const ids = movedOrder(
      this.ordered().map((e) => e.id),
      id,
      delta,
    );
    if (!ids) return;
    const agents = { ...this.settings.settings.agents };
    ids.forEach((agentId, order) => (agents[agentId] = { ...agents[agentId], order }));
    this.settings.set(['agents'], agents);
  }

  /** The entry to launch for a request: its agent, or the plain Terminal. */
  get(id: string | null | undefined): CatalogEntry | undefined {
    return this.catalog.get(id ?? TERMINAL_AGENT_ID);
  }

  name(id: string | null | undefined): string {
    return this.get(id)?.manifest.name ?? id ?? 'Terminal';
  }

  /** Whether our hook entries are in an agent's config now (null: it declares no hooks). */
  hookStatus(agentId: string): AgentHookResult | null {
    return hookStatusOf(agentId, this.catalog.get(agentId)?.manifest, this.integration());
  }

  /** Installs or removes our hook entries for one agent (Settings → Live status, the welcome). */
  setHooks(agentId: string, on: boolean): AgentHookResult | null {
    return setLiveStatus(agentId, this.catalog.get(agentId)?.manifest, on, this.integration());
  }
}
