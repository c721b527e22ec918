// The tools `termio mcp` offers: each is one control verb (the one the matching `termio sessions`
// or `termio worktrees` command sends), its input schema derived from that verb's zod schema in
// src/protocol/control.ts, so the MCP surface cannot drift from the protocol. Trust is the CLI's:
// the control client sends TERMIO_SESSION_SECRET when there is one, so inside a session the caller
// is that session; and nothing through MCP starts an agent with permission bypass.
import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { ControlArgsSchemas, type ControlArgs, type ControlVerb } from '../../protocol/control';
import { ControlClient, REQUEST_TIMEOUT_MS } from '../client/controlClient';
import { bypassAgents, findBypassFlag } from '../services/bypassArgv';
import { AgentCatalog } from '../services/catalog';
import { termioPaths } from '../services/paths';
import { parseSettings } from '../services/settingsFile';
import { readTextIfExists } from '../services/textFile';

/** What a tool call gives back: the verb's result as JSON text, or an error naming its code. */
export type ToolOutcome = {
  isError?: true;
  content: { type: 'text'; text: string }[];
};

export interface McpTool {
  name: string;
  description: string;
  /** Validates the tool's arguments; its JSON Schema is what tools/list shows. */
  input: z.ZodObject;
  /** The control request the validated arguments make, or why the tool refuses them. */
  request(args: Record<string, unknown>, ctx: ToolContext): ToolRequest | Refusal;
}

type ToolRequest = { verb: ControlVerb; args: unknown; waitMs?: number };
type Refusal = { code: 'badRequest' | 'forbidden'; message: string };

export interface ToolContext {
  env: NodeJS.ProcessEnv;
  /** The server's working folder: where a spawn without `cwd` starts (the agent's project, as for the CLI). */
  cwd: string;
}

const S = ControlArgsSchemas;

/** A verb's arguments as they are, for tools that add nothing. */
function direct(verb: ControlVerb, description: string): McpTool {
  const input = S[verb] as z.ZodObject;
  return { name: verb.replace('.', '_'), description, input, request: (args) => ({ verb, args }) };
}

/** The session this server runs in, if any: it becomes the parent of what a spawn starts (as with the CLI). */
function parentOf(env: NodeJS.ProcessEnv): { parent?: string } {
  return env.TERMIO_SESSION ? { parent: env.TERMIO_SESSION } : {};
}

/** sessions_spawn: an agent (sessions.spawn) or a command (sessions.run); never bypass, never a parent the caller names. */
const SpawnInput = S['sessions.spawn'].omit({ bypass: true, parent: true, wait: true, cols: true, rows: true }).extend({
  command: S['sessions.run'].shape.argv.optional().describe('run this command (argv, no shell) instead of an agent; not with agent or prompt'),
  cwd: z.string().min(1).max(4096).optional().describe("the folder to start in (relative: to the server's folder); omitted = the server's folder"),
});

/** sessions_fanout: sessions.fanout with the folder resolved as sessions_spawn does; never a parent the caller names. */
const FanoutInput = S['sessions.fanout'].omit({ parent: true, cwd: true }).extend({
  cwd: SpawnInput.shape.cwd.describe("a folder in the repository (relative: to the server's folder); omitted = the server's folder"),
});

const NEVER_BYPASS = 'permission bypass is never granted through MCP; start such a session yourself (termio sessions spawn --bypass, or the app)';

/** The user's own setting that starts an agent with bypass unasked (Settings → Agents) would grant it here too: refused instead.
 *  A machine's sessions follow that machine's settings, which are not readable from here. */
function bypassBySetting(agent: string | undefined, env: NodeJS.ProcessEnv): Refusal | null {
  if (agent === undefined) return null;
  const settings = parseSettings(readTextIfExists(termioPaths(env).settingsFile) ?? '{}').settings;
  if (!settings.agents[agent]?.bypass) return null;
  return { code: 'forbidden', message: `bypass: ${agent} starts with permission bypass by your setting, and ${NEVER_BYPASS}` };
}

function spawnRequest(raw: Record<string, unknown>, ctx: ToolContext): ToolRequest | Refusal {
  const a = raw as z.infer<typeof SpawnInput>;
  const { command, cwd, ...rest } = a;
  const where =
    a.machine !== undefined ? (cwd !== undefined ? { cwd } : {}) : { cwd: cwd === undefined ? ctx.cwd : isAbsolute(cwd) ? cwd : resolve(ctx.cwd, cwd) };
  if (command === undefined) {
    const refused = a.machine === undefined ? bypassBySetting(a.agent, ctx.env) : null;
    return refused ?? { verb: 'sessions.spawn', args: { ...rest, ...where, ...parentOf(ctx.env) } };
  }
  if (a.agent !== undefined || a.prompt !== undefined)
    return { code: 'badRequest', message: 'command: give either agent (with an optional prompt) or command, not both' };
  const { agent: _agent, prompt: _prompt, ...runArgs } = rest;
  return { verb: 'sessions.run', args: { ...runArgs, argv: command, ...where, ...parentOf(ctx.env) } };
}

/** A command line that starts an agent with its bypass flag (the host's own judgement, bypassArgv.ts,
 *  against the same catalog): refused, wherever the caller runs. */
async function bypassInCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Refusal | null> {
  // The agent's PATH resolves commands here: no login shell is started for one tool call.
  const catalog = await AgentCatalog.create({ env, watch: false, path: env.PATH ?? '' });
  try {
    const found = findBypassFlag(argv, bypassAgents(catalog.list()), (c) => catalog.resolveCommand(c));
    return found ? { code: 'forbidden', message: `command: it starts ${found.agent} with ${found.flag}, and ${NEVER_BYPASS}` } : null;
  } finally {
    await catalog.dispose();
  }
}

/** How long starting one fan-out member may take. */
const FANOUT_MS_PER_AGENT = 60_000;

function fanoutRequest(raw: Record<string, unknown>, ctx: ToolContext): ToolRequest | Refusal {
  const { cwd, ...rest } = raw as z.infer<typeof FanoutInput>;
  for (const agent of new Set(rest.agents)) {
    const refused = bypassBySetting(agent, ctx.env);
    if (refused) return refused;
  }
  const dir = cwd === undefined ? ctx.cwd : isAbsolute(cwd) ? cwd : resolve(ctx.cwd, cwd);
  // Each member starts as a spawn does: a minute each for its worktree and its launch.
  return { verb: 'sessions.fanout', args: { ...rest, cwd: dir, ...parentOf(ctx.env) }, waitMs: FANOUT_MS_PER_AGENT * rest.agents.length };
}

export const MCP_TOOLS: readonly McpTool[] = [
  direct('sessions.list', 'List the Termio sessions: id, agent, state (working, attention = needs the user, done, idle), folder, title.'),
  {
    name: 'sessions_spawn',
    description:
      'Start a session: an agent by manifest id (with an optional first prompt, typed once it is ready), the login shell (no agent), or a command. ' +
      'Optionally in a new git worktree or on a saved machine. Returns its id at once; follow it with sessions_wait.',
    input: SpawnInput,
    request: spawnRequest,
  },
  {
    name: 'sessions_send',
    description: 'Type text into a session (enter: then press Return). With wait, reply once the turn it started has ended, with what the program wrote.',
    input: S['sessions.send'],
    request: (args) => ({ verb: 'sessions.send', args, waitMs: (args as ControlArgs<'sessions.send'>).wait?.timeoutMs ?? 0 }),
  },
  direct('sessions.read', "Read a session's visible screen as text, or its last N non-empty lines, or the agent's transcript file."),
  {
    name: 'sessions_wait',
    description:
      'Wait until a session reaches a state (done, idle, attention, exit, turn, ready) or the timeout; returns the outcome and what the program wrote meanwhile.',
    input: S['sessions.wait'],
    request: (args) => ({ verb: 'sessions.wait', args, waitMs: (args as ControlArgs<'sessions.wait'>).timeoutMs }),
  },
  direct('sessions.question', 'The question a session asks while it needs the user, with its choices (read it before sessions_answer).'),
  direct('sessions.answer', 'Answer the question read with sessions_question: a choice by number, label or key.'),
  direct('sessions.why', 'Why a session is in its state: which hook, title or screen rule said so, when, and health notes.'),
  direct('worktrees.diff', "The diff of a worktree session's work against its fork point (or the stat), with the proposed commit message."),
  {
    name: 'sessions_fanout',
    description:
      'Start the same prompt in a new git worktree per agent (one repository, a branch each), recorded as one fan-out group. ' +
      'Returns the group: its id and each member (agent, session id, branch, worktree folder); compare and merge with `termio sessions fanout show|merge`.',
    input: FanoutInput,
    request: fanoutRequest,
  },
];

/** A tool's input schema for tools/list: JSON Schema of what the tool accepts, from its zod schema. */
export function toolJsonSchema(tool: McpTool): { type: 'object'; [key: string]: unknown } {
  const { $schema: _drop, ...schema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, type: 'object' };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
}

function failure(text: string): ToolOutcome {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Runs one tool call: validates, refuses bypass, sends the verb on a fresh connection (starting the host when none runs). */
export async function callTool(name: string, raw: Record<string, unknown> | undefined, ctx: ToolContext): Promise<ToolOutcome> {
  const tool = MCP_TOOLS.find((t) => t.name === name);
  if (!tool) return failure(`unknown tool '${name}' (known: ${MCP_TOOLS.map((t) => t.name).join(', ')})`);
  if (name === 'sessions_spawn' && raw?.bypass !== undefined) return failure(`forbidden: bypass: ${NEVER_BYPASS}`);
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return failure(`badRequest: ${name}: ${describeIssues(parsed.error)}`);
  const req = tool.request(parsed.data, ctx);
  if ('code' in req) return failure(`${req.code}: ${name}: ${req.message}`);
  const refused = req.verb === 'sessions.run' ? await bypassInCommand((req.args as { argv: string[] }).argv, ctx.env) : null;
  if (refused) return failure(`${refused.code}: ${name}: ${refused.message}`);
  const client = await ControlClient.connectOrStart(ctx.env);
  if (!(client instanceof ControlClient)) return failure(`hostNotRunning: ${client.message}`);
  try {
    const reply = await client.request(req.verb, req.args as never, REQUEST_TIMEOUT_MS + (req.waitMs ?? 0));
    if (!reply.ok) return failure(`${reply.lost ? 'connectionLost' : reply.error.code}: ${reply.error.message}`);
    return { content: [{ type: 'text', text: JSON.stringify(reply.result, null, 2) }] };
  } finally {
    client.close();
  }
}
