// Termio's MCP server in each agent's own MCP config (the manifest's `mcp`), installed and removed
// together with live status: the protocol's text edit (src/protocol/hooks/mcpConfig.ts), a backup
// of the file before our first edit of it, a re-parse of a TOML result, an atomic write. What a
// user's file can cause is a result value naming the file; nothing here throws for it.
import { resolve } from 'node:path';
import { editMcpConfig, inspectMcpConfig, type McpDeclaration, type McpServerEntry } from '../../protocol/hooks';
import { expandHome } from '../../protocol/homePath';
import { writeFileAtomic } from './atomicWrite';
import { backupOnce, tomlError } from './hookInstaller';
import { installPath } from './install';
import type { TermioPaths } from './paths';
import { readTextIfExists } from './textFile';

export interface McpAgent {
  agentId: string;
  mcp: McpDeclaration;
}

export interface McpResult {
  agentId: string;
  file: string;
  /** installed: as install writes it; stale: registered, but to run something else (install rewrites it). */
  state: 'installed' | 'stale' | 'absent' | 'error';
  action: 'written' | 'removed' | 'unchanged' | 'none';
  backup?: string;
  error?: string;
}

/** How every agent starts the server: this Node running this build's bin/termio, with the
 *  TERMIO_HOME it was installed for when one was set (else the agent's own environment decides). */
export function mcpServerEntry(env: NodeJS.ProcessEnv): McpServerEntry {
  return {
    command: process.execPath,
    args: [installPath('bin', 'termio'), 'mcp'],
    ...(env.TERMIO_HOME ? { env: { TERMIO_HOME: env.TERMIO_HOME } } : {}),
  };
}

export function mcpConfigFile(agent: McpAgent, home: string): string {
  return resolve(home, expandHome(agent.mcp.file, home));
}

export interface McpInstallOptions {
  paths: TermioPaths;
  home: string;
  entry: McpServerEntry;
}

export function mcpStatus(agent: McpAgent, opts: McpInstallOptions): McpResult {
  const file = mcpConfigFile(agent, opts.home);
  const base = { agentId: agent.agentId, file, action: 'none' as const };
  try {
    const text = readTextIfExists(file);
    const bad = agent.mcp.type === 'toml' ? tomlError(text) : null;
    if (bad) return { ...base, state: 'error', error: `${file}: ${bad}` };
    const r = inspectMcpConfig(text, agent.mcp, opts.entry);
    return r.ok ? { ...base, state: r.state } : { ...base, state: 'error', error: `${file}: ${r.error}` };
  } catch (e) {
    return { ...base, state: 'error', error: `${file}: ${(e as Error).message}` };
  }
}

/** Registers (install) or unregisters (uninstall) the server in one agent's config. */
export function applyMcp(op: 'install' | 'uninstall', agent: McpAgent, opts: McpInstallOptions): McpResult {
  const file = mcpConfigFile(agent, opts.home);
  const fail = (error: string): McpResult => ({ agentId: agent.agentId, file, state: 'error', action: 'none', error: `${file}: ${error}; left untouched` });
  try {
    const before = readTextIfExists(file);
    const toml = agent.mcp.type === 'toml';
    const bad = toml ? tomlError(before) : null;
    if (bad) return fail(bad);
    const edit = editMcpConfig(op, before, agent.mcp, opts.entry);
    if (!edit.ok) return fail(edit.error);
    if (!edit.changed) return { ...mcpStatus(agent, opts), action: 'unchanged' };
    const after = toml ? tomlError(edit.text) : null;
    if (after) return fail(`our block would make it invalid (${after})`);
    const backup = backupOnce(opts.paths, 'mcp', agent.agentId, file);
    writeFileAtomic(file, edit.text);
    return { ...mcpStatus(agent, opts), action: op === 'install' ? 'written' : 'removed', ...(backup ? { backup } : {}) };
  } catch (e) {
    return fail((e as Error).message);
  }
}
