// Termio's entries in the agents' own configs, put in, taken out or checked (and repaired) for
// every agent whose manifest declares hooks: the hook entries, the Termio skill beside them and
// Termio's MCP server registration. One of the modules only the session host loads (the CLI's
// local fallback aside, when no host runs): `termio hooks`, `termio mcp status` and Settings →
// Live status all reach this through the host's `hooks.apply` verb.
import type { HooksOp } from '../../protocol/controlSettings';
import type { CatalogEntry } from './catalog';
import { checkAndRepairAgentHooks, ensureLauncher, installAgentHooks, uninstallAgentHooks, type AgentHookResult, type AgentHooks } from './hookInstaller';
import { hookSilenceFile, readHookSilence, type SilentRelease } from './hookSilence';
import { applyMcp, mcpServerEntry, mcpStatus, type McpAgent, type McpResult } from './mcpInstaller';
import type { TermioPaths } from './paths';
import { installSkill, skillStatus, uninstallSkill, type SkillResult } from './skillInstaller';

export type HookAgent = AgentHooks & { skills?: string; mcp?: McpAgent['mcp'] };

export interface AgentConfigResults {
  /** Each agent's hooks, with the release whose hooks ran in a session without reaching Termio. */
  agents: (AgentHookResult & { notReporting?: SilentRelease })[];
  skills: SkillResult[];
  mcp: McpResult[];
}

/** The agents whose manifests declare hooks (only `agentId` when given), or why there is none. */
export function hookAgentsOf(entries: readonly CatalogEntry[], agentId: string | undefined): HookAgent[] | { error: string } {
  const manifests = new Map(entries.map((e) => [e.id, e.manifest] as const));
  const agents: HookAgent[] = [...manifests.values()].flatMap((m) =>
    m.hooks ? [{ agentId: m.id, hooks: m.hooks, skills: m.skills || undefined, mcp: m.mcp || undefined }] : [],
  );
  if (agentId === undefined) return agents;
  const m = manifests.get(agentId);
  if (!m) return { error: `no agent '${agentId}' (known: ${[...manifests.keys()].join(', ')})` };
  if (!m.hooks) return { error: `agent '${agentId}' declares no hooks; its status comes from its title or screen` };
  return agents.filter((a) => a.agentId === agentId);
}

export interface AgentConfigOptions {
  paths: TermioPaths;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Only the MCP registrations' status (`termio mcp status`): nothing is repaired. */
  mcpOnly?: boolean;
}

/**
 * Runs `op` on each agent's hooks, then on its skill and its MCP server registration. Throws only
 * when the hook launcher cannot be written; what an agent's file causes is a result naming it.
 */
export function applyAgentConfigs(op: HooksOp, agents: HookAgent[], opts: AgentConfigOptions): AgentConfigResults {
  const mcpOpts = { paths: opts.paths, home: opts.home, entry: mcpServerEntry(opts.env) };
  const mcpOf = (skip: (i: number) => boolean) =>
    agents.flatMap((a, i) => {
      if (!a.mcp || skip(i)) return [];
      const agent = { agentId: a.agentId, mcp: a.mcp };
      return [op === 'status' ? mcpStatus(agent, mcpOpts) : applyMcp(op, agent, mcpOpts)];
    });
  if (opts.mcpOnly) return { agents: [], skills: [], mcp: mcpOf(() => false) };
  const hookOpts = { paths: opts.paths, home: opts.home, reporter: ensureLauncher(opts.paths) };
  // Out in the reverse order of in: the MCP server before the hooks, so the blocks both put in
  // Codex's config.toml come off as they went on and leave the user's bytes.
  const mcpFirst = op === 'uninstall' ? mcpOf(() => false) : null;
  const results = agents.map((a) =>
    op === 'install' ? installAgentHooks(a, hookOpts) : op === 'uninstall' ? uninstallAgentHooks(a, hookOpts) : checkAndRepairAgentHooks(a, hookOpts),
  );
  const skillFn = op === 'install' ? installSkill : op === 'uninstall' ? uninstallSkill : skillStatus;
  // The skill and the MCP server go in with hooks that went in, and out with them.
  const skills = agents.flatMap((a, i) => (a.skills && !(op === 'install' && results[i]?.error) ? [skillFn(a.agentId, a.skills, { home: opts.home })] : []));
  const mcp = mcpFirst ?? mcpOf((i) => op === 'install' && results[i]?.error !== undefined);
  // Releases whose hooks did not report in a session (the host notes them; see hookSilence.ts).
  const silence = readHookSilence(hookSilenceFile(opts.paths));
  return { agents: results.map((r) => (silence[r.agentId] ? { ...r, notReporting: silence[r.agentId] } : r)), skills, mcp };
}
