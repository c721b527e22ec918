// Live status for one agent, switched on or off: Termio's hook entries in the agent's own config
// and, with them, the Termio skill. Every change is logged; what fails is reported as a problem.
import type { CatalogEntry } from './catalog';
import { agentHookStatus, ensureLauncher, installAgentHooks, uninstallAgentHooks, type AgentHookResult } from './hookInstaller';
import type { Logger } from './log';
import type { TermioPaths } from './paths';
import { installSkill, uninstallSkill } from './skillInstaller';

type Manifest = CatalogEntry['manifest'];

export interface AgentIntegrationOptions {
  paths: TermioPaths;
  home: string;
  logger: Logger;
  reportProblem: (message: string) => void;
}

function hookOptions(o: AgentIntegrationOptions) {
  return { paths: o.paths, home: o.home, reporter: ensureLauncher(o.paths) };
}

/** Whether our hook entries are in an agent's config now (null: it declares no hooks). */
export function hookStatusOf(agentId: string, m: Manifest | undefined, o: AgentIntegrationOptions): AgentHookResult | null {
  return m?.hooks ? agentHookStatus({ agentId, hooks: m.hooks }, hookOptions(o)) : null;
}

/** Installs or removes our hook entries for one agent (null: it declares no hooks). */
export function setLiveStatus(agentId: string, m: Manifest | undefined, on: boolean, o: AgentIntegrationOptions): AgentHookResult | null {
  if (!m?.hooks) return null;
  const r = (on ? installAgentHooks : uninstallAgentHooks)({ agentId, hooks: m.hooks }, hookOptions(o));
  o.logger.info('hooks changed', { agentId, on, state: r.state, action: r.action, file: r.file, ...(r.error ? { error: r.error } : {}) });
  if (r.error) o.reportProblem(r.error);
  // The Termio skill goes in with live status and out with it.
  if (m.skills && !(on && r.error)) {
    const skill = (on ? installSkill : uninstallSkill)(agentId, m.skills, { home: o.home });
    o.logger.info('skill changed', { agentId, on, state: skill.state, action: skill.action, file: skill.file });
    if (skill.error) o.reportProblem(skill.error);
  }
  return r;
}
