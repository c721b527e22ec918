// The verbs through which the app and the CLI read and change the state the host alone writes:
// settings.json (settings.get / settings.set), the agents' hook, skill and MCP configs
// (hooks.apply) and the login shell's PATH that sessions start with (agents.loginPath). Each
// change is made by the host's own SettingsStore or agentConfigs, so two processes never edit
// one file at once, and the host's state follows at once (the store tells its listeners).
import type { ControlArgs, Outcome } from '../../../protocol/control';
import { applyAgentConfigs, hookAgentsOf } from '../../services/agentConfigs';
import type { AgentCatalog } from '../../services/catalog';
import type { Logger } from '../../services/log';
import type { TermioPaths } from '../../services/paths';
import { SettingsEditRefused, type SettingsStore } from '../../services/settings';

export interface SettingsVerbsDeps {
  settings: () => Promise<SettingsStore>;
  catalog: () => Promise<AgentCatalog>;
  /** The login shell's PATH as sessions get it, asked again when a start-up file changed. */
  loginPath: () => Promise<{ path: string | null; source: string }>;
  paths: TermioPaths;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

export class SettingsVerbs {
  constructor(private readonly d: SettingsVerbsDeps) {}

  async get(): Promise<Outcome> {
    const s = await this.d.settings();
    return { ok: true, result: { file: s.file, settings: s.settings, errors: s.errors } };
  }

  async set(args: ControlArgs<'settings.set'>): Promise<Outcome> {
    const s = await this.d.settings();
    try {
      const { notice } = s.set(args.path, args.value);
      this.d.logger.info('setting changed', { path: args.path.join('.'), notice: notice || undefined });
      return { ok: true, result: { file: s.file, notice } };
    } catch (e) {
      if (e instanceof SettingsEditRefused) return { ok: false, code: 'badSetting', message: e.message };
      throw e;
    }
  }

  async hooks(args: ControlArgs<'hooks.apply'>): Promise<Outcome> {
    const catalog = await this.d.catalog();
    const agents = hookAgentsOf(catalog.list(), args.agent);
    if ('error' in agents) return { ok: false, code: 'noSuchAgent', message: agents.error };
    const home = this.d.env.HOME ?? '';
    if (!home) return { ok: false, code: 'internal', message: "the host has no HOME, so it cannot find the agents' config files" };
    let r;
    try {
      r = applyAgentConfigs(args.op, agents, { paths: this.d.paths, home, env: this.d.env, mcpOnly: args.mcpOnly ? true : undefined });
    } catch (e) {
      return { ok: false, code: 'internal', message: `cannot write the hook launcher: ${(e as Error).message}` };
    }
    for (const x of [...r.agents, ...r.skills, ...r.mcp]) {
      if (x.action !== 'none' && x.action !== 'unchanged') this.d.logger.info('agent config changed', { agentId: x.agentId, file: x.file, action: x.action });
      if (x.error) this.d.logger.warn('agent config problem', { agentId: x.agentId, error: x.error });
    }
    const skipped = catalog.problems().map((p) => `skipped manifest: ${p.errors.join('; ')}`);
    return { ok: true, result: { ...r, skipped } };
  }

  async loginPath(): Promise<Outcome> {
    return { ok: true, result: await this.d.loginPath() };
  }
}
