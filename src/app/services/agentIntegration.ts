// Live status for one agent, switched on or off: Termio's hook entries in the agent's own config
// and, with them, the Termio skill and Termio's MCP server in the agent's MCP config. Every change is logged; what fails is reported as a problem.
import type { CatalogEntry } from './catalog';
import { agentHookStatus, ensureLauncher, installAgentHooks, uninstallAgentHooks, type AgentHookResult } from './hookInstaller';
import type { Logger } from './log';
import type { TermioPaths } from './paths';
import { installSkill, uninstallSkill } from './skillInstaller';
import { applyMcp, mcpServerEntry } from './mcpInstaller';

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
  // Off: the MCP server comes out before the hooks, the reverse of the order they went in.
  if (!on) setMcp(agentId, m, false, o);
  const r = (on ? installAgentHooks : uninstallAgentHooks)({ agentId, hooks: m.hooks }, hookOptions(o));
  o.logger.info('hooks changed', { agentId, on, state: r.state, action: r.action, file: r.file, error: r.error || undefined });
  if (r.error) o.reportProblem(r.error);
  // The Termio skill and Termio's MCP server go in with live status and out with it.
  if (m.skills && !(on && r.error)) {
    const skill = (on ? installSkill : uninstallSkill)(agentId, m.skills, { home: o.home });
    o.logger.info('skill changed', { agentId, on, state: skill.state, action: skill.action, file: skill.file });
    if (skill.error) o.reportProblem(skill.error);
  }
  if (on && !r.error) setMcp(agentId, m, true, o);
  return r;
}

/** Registers or unregisters Termio's MCP server where the agent has an MCP config. */
function setMcp(agentId: string, m: Manifest, on: boolean, o: AgentIntegrationOptions): void {
  if (!m.mcp) return;
  const r = applyMcp(on ? 'install' : 'uninstall', { agentId, mcp: m.mcp }, { paths: o.paths, home: o.home, entry: mcpServerEntry(process.env) });
  o.logger.info('mcp server registration changed', { agentId, on, state: r.state, action: r.action, file: r.file });
  if (r.error) o.reportProblem(r.error);
}
