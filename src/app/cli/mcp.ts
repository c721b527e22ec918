// `termio mcp`: a Model Context Protocol server on stdin/stdout offering the session tools of
// mcpTools.ts (the control verbs the CLI sends), for agents that reach tools through MCP first.
// `termio mcp status [--json]`: where the server is registered in each agent's own MCP config
// (`termio hooks install` registers it there). The SDK is loaded only here, never by other commands.
import { packageVersion } from '../services/install';
import { ExitCode, parseOrUsage, type CliIo } from './cliIo';
import { describeMcp } from './hooks';
import { applyHooks } from './localWriter';
import { printOk } from './output';

const HELP = `Usage: termio mcp [status [--json]]

termio mcp          serve Termio's session tools over MCP on stdin/stdout (an agent starts it)
termio mcp status   where the server is registered in each agent's own MCP config

Tools: sessions_list, sessions_spawn, sessions_send, sessions_read, sessions_wait,
sessions_question, sessions_answer, sessions_why, worktrees_diff, sessions_fanout (docs/mcp.md).
Inside a session, a child spawned to tell its parent (--notify-parent) that finishes is also
sent to the client as a logging notification (notifications/message, logger "termio").
Inside a Termio session the caller is that session, as with the termio command; permission
bypass is never granted through MCP. \`termio hooks install\` registers the server as "termio"
in each agent's MCP config its manifest names (mcp.file); uninstall takes it out again.
`;

async function serve(io: CliIo): Promise<number> {
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js') as typeof import('@modelcontextprotocol/sdk/server/stdio.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } =
    require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
  const { MCP_TOOLS, callTool, toolJsonSchema } = require('./mcpTools') as typeof import('./mcpTools');
  const { ChildNoticeForwarder } = require('./mcpNotices') as typeof import('./mcpNotices');
  const server = new Server(
    { name: 'termio', version: packageVersion() },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: 'Termio hosts agent CLIs in terminal sessions: start one, send it text, wait for its turn, read its screen, answer its questions.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: toolJsonSchema(t) })),
  }));
  const ctx = { env: io.env, cwd: io.cwd };
  const notices = new ChildNoticeForwarder(io.env, (notice) => {
    void server.sendLoggingMessage({ level: 'notice', logger: 'termio', data: { event: 'childFinished', ...notice } }).catch(() => undefined);
  });
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const out = await callTool(req.params.name, req.params.arguments, ctx);
    await notices.ensure();
    return out;
  });
  const closed = new Promise<number>((resolve) => {
    server.onclose = () => {
      notices.dispose();
      resolve(ExitCode.ok);
    };
  });
  await server.connect(new StdioServerTransport());
  await notices.ensure();
  // The agent ends the server by closing its stdin.
  process.stdin.once('end', () => void server.close());
  return closed;
}

async function status(io: CliIo, json: boolean): Promise<number> {
  const home = io.env.HOME ?? '';
  if (!home) {
    io.err("termio mcp: HOME is not set; cannot find the agents' config files\n");
    return ExitCode.usage;
  }
  // Read by the host when one runs (it owns these files), else here; nothing is changed.
  const r = await applyHooks(io, { op: 'status', mcpOnly: true });
  if (!r.ok) {
    io.err(`termio mcp: ${r.message}\n`);
    return ExitCode.failed;
  }
  for (const line of r.result.skipped) io.err(`termio mcp: ${line}\n`);
  const results = r.result.mcp;
  if (json) printOk(io, { mcp: results });
  else for (const r of results) io.out(`${describeMcp(r, home)}\n`);
  return results.some((r) => r.error !== undefined) ? ExitCode.failed : ExitCode.ok;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseOrUsage(io, 'mcp', HELP, args, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (typeof parsed === 'number') return parsed;
  const [verb, ...extra] = parsed.positionals;
  if (parsed.values.help || verb === 'help') {
    io.out(HELP);
    return ExitCode.ok;
  }
  if (extra.length || (verb !== undefined && verb !== 'status')) {
    io.err(`termio mcp: unknown argument '${verb === 'status' ? extra[0] : verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  return verb === 'status' ? status(io, parsed.values.json === true) : serve(io);
}
