// Termio's MCP server (`termio mcp`) registered in an agent's own MCP configuration, the one its
// manifest names in `mcp`: a member "termio" of the top-level "mcpServers" object in a JSON file
// (Claude Code's ~/.claude.json, Gemini CLI's and Qwen Code's settings.json), or a marked
// `[mcp_servers.termio]` block at the end of a TOML file (Codex's config.toml). Edited as text like
// the hooks: install is idempotent, uninstall takes out exactly what install put in. Pure.
import { findNodeAtLocation, type Node } from 'jsonc-parser';
import { appendMember, applyEdit, detectStyle } from './jsonTextEdit';
import { parseJsonConfig, removeJsonMember } from './jsonHooks';
import { markedBlockText, withMarkedBlock, type BlockMarkers } from './markedBlock';

/** The name the server is registered under in every agent's config. */
export const MCP_SERVER_NAME = 'termio';

export interface McpDeclaration {
  /** The agent's MCP config file (`~/` is the home folder). */
  file: string;
  /** json: "mcpServers"."termio" in a JSON(C) file; toml: a `[mcp_servers.termio]` table. */
  type: 'json' | 'toml';
}

/** How the agent starts the server: a program, its arguments, and variables set for it. */
export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export type McpEdit = { ok: true; text: string; changed: boolean } | { ok: false; error: string };
export type McpState = 'installed' | 'stale' | 'absent';

/** Variables Codex must pass on from its own environment (it gives MCP servers only a short default list):
 *  inside a Termio session they say which session asks. */
export const CODEX_FORWARDED_ENV = ['TERMIO_HOME', 'TERMIO_SESSION', 'TERMIO_SESSION_SECRET'];

const TOML_MARKERS: BlockMarkers = {
  start: '# >>> termio mcp: written by `termio hooks install`, removed by `termio hooks uninstall` >>>',
  end: '# <<< termio mcp <<<',
  label: 'termio mcp',
};

const tomlString = (s: string) => JSON.stringify(s);
const tomlArray = (a: readonly string[]) => `[${a.map(tomlString).join(', ')}]`;

function tomlLines(entry: McpServerEntry): string[] {
  const lines = [`[mcp_servers.${MCP_SERVER_NAME}]`, `command = ${tomlString(entry.command)}`, `args = ${tomlArray(entry.args)}`];
  const forwarded = CODEX_FORWARDED_ENV.filter((v) => entry.env?.[v] === undefined);
  lines.push(`env_vars = ${tomlArray(forwarded)}`);
  if (entry.env && Object.keys(entry.env).length) {
    lines.push(`[mcp_servers.${MCP_SERVER_NAME}.env]`, ...Object.entries(entry.env).map(([k, v]) => `${k} = ${tomlString(v)}`));
  }
  return lines;
}

/** Our member's node in a JSON config, or why the file cannot be edited. */
function jsonFind(text: string): { root: Node | undefined; servers: Node | undefined; ours: Node | undefined } | { error: string } {
  const parsed = parseJsonConfig(text);
  if ('error' in parsed) return parsed;
  const servers = parsed.root && findNodeAtLocation(parsed.root, ['mcpServers']);
  if (servers && servers.type !== 'object') return { error: `"mcpServers" is a ${servers.type}, expected an object` };
  const ours = servers && findNodeAtLocation(servers, [MCP_SERVER_NAME]);
  return { root: parsed.root, servers, ours };
}

function sameValue(node: Node | undefined, text: string, entry: McpServerEntry): boolean {
  if (!node) return false;
  try {
    return JSON.stringify(JSON.parse(text.slice(node.offset, node.offset + node.length))) === JSON.stringify(entry);
  } catch {
    return false; // JSONC inside our member (a comment): not ours as written, so rewrite it
  }
}

function installJson(text: string | null, entry: McpServerEntry): McpEdit {
  const fresh = text === null || text.trim() === '';
  const start = fresh ? '{}' : text;
  const found = jsonFind(start);
  if ('error' in found) return { ok: false, error: found.error };
  if (!fresh && sameValue(found.ours, start, entry)) return { ok: true, text: start, changed: false };
  const style = fresh ? { unit: '  ', eol: '\n' } : detectStyle(start);
  let out = found.ours ? removeJsonMember(start, ['mcpServers', MCP_SERVER_NAME], false) : start;
  const again = jsonFind(out);
  if ('error' in again || !again.root) return { ok: false, error: 'error' in again ? again.error : 'no JSON object' };
  out = applyEdit(
    out,
    again.servers
      ? appendMember(out, again.servers, MCP_SERVER_NAME, entry, style)
      : appendMember(out, again.root, 'mcpServers', { [MCP_SERVER_NAME]: entry }, style),
  );
  if (fresh) out += '\n';
  return { ok: true, text: out, changed: out !== text };
}

function uninstallJson(text: string | null): McpEdit {
  if (text === null || text.trim() === '') return { ok: true, text: text ?? '', changed: false };
  const found = jsonFind(text);
  if ('error' in found) return { ok: false, error: found.error };
  if (!found.ours) return { ok: true, text, changed: false };
  return { ok: true, text: removeJsonMember(text, ['mcpServers', MCP_SERVER_NAME], true), changed: true };
}

/** The config text with the server registered (install) or taken out again (uninstall). */
export function editMcpConfig(op: 'install' | 'uninstall', text: string | null, mcp: McpDeclaration, entry: McpServerEntry): McpEdit {
  if (mcp.type === 'json') return op === 'install' ? installJson(text, entry) : uninstallJson(text);
  const out = withMarkedBlock(text, TOML_MARKERS, op === 'install' ? tomlLines(entry) : []);
  return { ok: true, text: out, changed: out !== (text ?? '') };
}

/** Whether the server is registered: as install would write it (installed), otherwise (stale), or not at all. */
export function inspectMcpConfig(
  text: string | null,
  mcp: McpDeclaration,
  entry: McpServerEntry,
): { ok: true; state: McpState } | { ok: false; error: string } {
  if (mcp.type === 'toml') {
    const block = markedBlockText(text, TOML_MARKERS);
    if (block === null) return { ok: true, state: 'absent' };
    return { ok: true, state: block.includes(tomlLines(entry).join('\n')) || block.includes(tomlLines(entry).join('\r\n')) ? 'installed' : 'stale' };
  }
  if (text === null || text.trim() === '') return { ok: true, state: 'absent' };
  const found = jsonFind(text);
  if ('error' in found) return { ok: false, error: found.error };
  return { ok: true, state: !found.ours ? 'absent' : sameValue(found.ours, text, entry) ? 'installed' : 'stale' };
}
