// The real Claude Code (the newest release on npm) finds Termio's MCP server where `termio hooks
// install` registered it, in its user config ~/.claude.json: `claude mcp list` starts every server
// it knows for a health check and prints each with the result, and Termio's is Connected (the MCP
// handshake with the real bin/termio succeeded). After `termio hooks uninstall` Claude knows no
// server at all. Offline: listing servers asks no model. Fails where CI is set and Claude Code
// cannot be installed; skips with the reason elsewhere.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { AGENT_CLI_INSTALL_TIMEOUT_MS } from '../helpers/agentCli';
import { AgentHome } from '../helpers/agentHome';
import { repoRoot } from '../helpers/companionHost';
import { skipUnlessRequired } from '../helpers/required';
import { CLAUDE_ENV, ensureNewestClaude, writeClaudeUser } from '../integration/agents/recipes/claude';

/** `claude mcp list` answers in a second or two here; a loaded CI box can take far longer to start it. */
const LIST_TIMEOUT_MS = 90_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, 60_000);

function claudeMcpList(cli: string, agent: AgentHome): Promise<{ code: number | string; out: string }> {
  return new Promise((resolveRun) => {
    execFile(cli, ['mcp', 'list'], { env: agent.env, cwd: agent.project, timeout: LIST_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolveRun({ code: err ? (err.code ?? 'failed') : 0, out: stdout + stderr }),
    );
  });
}

it(
  'Claude Code lists the server termio hooks install registered as connected, and none after uninstall',
  { timeout: AGENT_CLI_INSTALL_TIMEOUT_MS + 3 * LIST_TIMEOUT_MS },
  async (ctx) => {
    const cli = await ensureNewestClaude();
    if (!cli.ok) return ctx.skip(skipUnlessRequired(`Claude Code is not available: ${cli.reason}`) ?? undefined);
    const agent = new AgentHome(cli.path, 'termio-claude-mcp-');
    cleanups.push(() => agent.dispose());
    writeClaudeUser(agent.home, { trusted: [agent.project] });
    Object.assign(agent.env, CLAUDE_ENV);

    await agent.installHooks('claude');
    const status = await agent.termioJson<{ mcp: { agentId: string; state: string; file: string }[] }>(['mcp', 'status']);
    expect(status.mcp.find((r) => r.agentId === 'claude')).toEqual({
      agentId: 'claude',
      state: 'installed',
      action: 'none',
      file: join(agent.home, '.claude.json'),
    });

    const listed = await claudeMcpList(cli.path, agent);
    expect(listed).toMatchObject({ code: 0 });
    expect(listed.out).toContain(`termio: ${process.execPath} ${join(repoRoot, 'bin', 'termio')} mcp - ✔ Connected`);

    const removed = await agent.termio(['hooks', 'uninstall', '--agent', 'claude']);
    expect(removed.status).toBe(0);
    const after = await claudeMcpList(cli.path, agent);
    expect(after.out).not.toContain('termio');
    expect(after.out).toContain('No MCP servers configured');
  },
);
