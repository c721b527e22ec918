// Termio's hook entries for one agent, put in as the host's hooks.apply verb does (the tests that
// start a Host in this process call it directly; the CLI and the app ask the verb).
import type { Host } from '../../src/app/host/host';
import { applyAgentConfigs, hookAgentsOf } from '../../src/app/services/agentConfigs';
import type { AgentHookResult } from '../../src/app/services/hookResult';

export function installHooks(host: Host, agentId: string): AgentHookResult | undefined {
  const agents = hookAgentsOf(host.catalog.list(), agentId);
  if ('error' in agents) throw new Error(agents.error);
  return applyAgentConfigs('install', agents, { paths: host.paths, home: process.env.HOME!, env: process.env }).agents[0];
}
