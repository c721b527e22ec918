// `termio mcp` (the real bin/termio, started by the MCP SDK's own client over stdio) against a real
// host: the tools are listed with input schemas derived from the control protocol's; a login
// shell is spawned, `echo hi` is sent, waited for and read back; and a server started inside
// that session (with the session's TERMIO_SESSION and secret, as an agent there would start it)
// speaks as that session: what it spawns is the session's child, and bypass is refused, asked
// for or by the user's setting. Such a server also tells its client, as a logging notification,
// when a child of its session that was asked to tell its parent finishes; and sessions_fanout
// refuses what the host refuses.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import * as z from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ControlArgsSchemas } from '../../src/protocol/control';
import { repoRoot, startHostInProcess } from '../helpers/companionHost';
import { waitFor } from '../helpers/waitFor';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function mcpClient(env: NodeJS.ProcessEnv, cwd: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot, 'bin', 'termio'), 'mcp'],
    env: env as Record<string, string>,
    cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'termio-test', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

/** The server an agent inside session `id` starts: with that session's TERMIO_SESSION and secret (read from its shell). */
async function insideClient(client: Client, host: { env: NodeJS.ProcessEnv; home: string }, id: string): Promise<Client> {
  await ok(client, 'sessions_send', { id, text: 'echo "S=$TERMIO_SESSION_SECRET"', enter: true });
  const secretLine = await waitFor(async () => (await screen(client, id)).find((l) => /^S=\S+$/.test(l)), { what: "the session's secret echoed" });
  return mcpClient({ ...host.env, TERMIO_SESSION: id, TERMIO_SESSION_SECRET: secretLine.slice(2) }, host.home);
}

const screen = async (of: Client, sid: string) => (await ok<{ lines: string[] }>(of, 'sessions_read', { id: sid })).lines;

type CallResult = { isError?: boolean; content: { type: string; text: string }[] };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

/** A tool's JSON result (the call must have succeeded). */
async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return JSON.parse(r.content[0]?.text ?? 'null') as T;
}

it('lists its tools, spawns a shell, sends echo hi, waits for it and reads it back; inside a session it is that session and refuses bypass', async () => {
  const host = await startHostInProcess({ enabled: false });
  cleanups.push(() => host.stop());
  const client = await mcpClient(host.env, host.home);

  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(
    [
      'sessions_answer',
      'sessions_fanout',
      'sessions_list',
      'sessions_question',
      'sessions_read',
      'sessions_send',
      'sessions_spawn',
      'sessions_wait',
      'sessions_why',
      'worktrees_diff',
    ].sort(),
  );
  // Derived from the protocol, not copied: the wait tool's schema is sessions.wait's, to the byte.
  const { $schema: _s, ...waitSchema } = z.toJSONSchema(ControlArgsSchemas['sessions.wait'], { io: 'input' }) as Record<string, unknown>;
  expect(tools.find((t) => t.name === 'sessions_wait')?.inputSchema).toEqual(waitSchema);
  const spawnSchema = tools.find((t) => t.name === 'sessions_spawn')?.inputSchema as { properties: Record<string, unknown> };
  expect(Object.keys(spawnSchema.properties)).toEqual(expect.arrayContaining(['agent', 'command', 'cwd', 'machine', 'worktree', 'prompt']));
  expect(spawnSchema.properties).not.toHaveProperty('bypass');

  const spawned = await ok<{ id: string; session: { cwd: string; agentId: string | null } }>(client, 'sessions_spawn', {});
  expect(spawned.session).toMatchObject({ cwd: host.home, agentId: null });
  const id = spawned.id;
  await ok(client, 'sessions_wait', { id, until: 'ready', timeoutMs: 30_000, since: 'start' });
  await ok(client, 'sessions_send', { id, text: 'echo hi', enter: true });
  // A shell reports no turns, so its output is what says the command ran.
  await waitFor(async () => (await screen(client, id)).includes('hi'), { what: 'hi on the shell screen, read through sessions_read' });
  const lines = await screen(client, id);
  // The command line typed (after the login shell's own prompt), then its output.
  expect(lines.findIndex((l) => l.endsWith(' echo hi'))).toBe(lines.indexOf('hi') - 1);
  const listed = await ok<{ sessions: { id: string }[] }>(client, 'sessions_list', {});
  expect(listed.sessions.map((s) => s.id)).toContain(id);

  // An agent inside that session starts its server with the session's environment.
  const inside = await insideClient(client, host, id);

  const refused = await call(inside, 'sessions_spawn', { bypass: true, command: ['/bin/true'] });
  expect(refused.isError).toBe(true);
  expect(refused.content[0]?.text).toMatch(/^forbidden: bypass: permission bypass is never granted through MCP/);
  expect((await ok<{ sessions: unknown[] }>(inside, 'sessions_list', {})).sessions).toHaveLength(1);

  const child = await ok<{ id: string; session: { parentId: string | null } }>(inside, 'sessions_spawn', { command: ['/bin/sh', '-c', 'echo child'] });
  expect(child.session.parentId).toBe(id);
  await waitFor(async () => (await screen(inside, child.id)).includes('child'), { what: "the child command's output" });

  // Nor through a command line that starts an agent with its bypass flag, even outside every session.
  const inCommand = await call(client, 'sessions_spawn', { command: ['sh', '-c', 'claude --dangerously-skip-permissions'] });
  expect(inCommand.isError).toBe(true);
  expect(inCommand.content[0]?.text).toBe(
    'forbidden: sessions_spawn: command: it starts claude with --dangerously-skip-permissions, and permission bypass is never granted through MCP; start such a session yourself (termio sessions spawn --bypass, or the app)',
  );

  // Nor through the user's setting that starts an agent with bypass unasked.
  mkdirSync(join(host.env.TERMIO_HOME!, 'config'), { recursive: true });
  writeFileSync(join(host.env.TERMIO_HOME!, 'config', 'settings.json'), JSON.stringify({ agents: { claude: { bypass: true } } }));
  const bySetting = await call(client, 'sessions_spawn', { agent: 'claude' });
  expect(bySetting.isError).toBe(true);
  expect(bySetting.content[0]?.text).toMatch(/^forbidden: sessions_spawn: bypass: claude starts with permission bypass by your setting/);
  expect((await ok<{ sessions: unknown[] }>(client, 'sessions_list', {})).sessions).toHaveLength(2);

  const bad = await call(inside, 'sessions_read', { id: child.id, lines: 0 });
  expect(bad).toMatchObject({ isError: true });
  expect(bad.content[0]?.text).toMatch(/^badRequest: sessions_read: lines: /);
});

it("tells the client inside a session when that session's child finishes, and starts fan-outs only as the host allows", async () => {
  const host = await startHostInProcess({ enabled: false });
  cleanups.push(() => host.stop());
  const outside = await mcpClient(host.env, host.home);
  const parent = (await ok<{ id: string }>(outside, 'sessions_spawn', {})).id;
  await ok(outside, 'sessions_wait', { id: parent, until: 'ready', timeoutMs: 30_000, since: 'start' });
  const inside = await insideClient(outside, host, parent);
  const heard = new Map<Client, unknown[]>([
    [outside, []],
    [inside, []],
  ]);
  for (const [c, list] of heard) c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void list.push(n.params));
  // A tool call returns once the server watches its session's children.
  await ok(inside, 'sessions_list', {});

  const child = await ok<{ id: string; session: { parentId: string | null } }>(inside, 'sessions_spawn', { notifyParent: true });
  expect(child.session.parentId).toBe(parent);
  await ok(inside, 'sessions_wait', { id: child.id, until: 'ready', timeoutMs: 30_000, since: 'start' });
  await ok(inside, 'sessions_send', { id: child.id, text: 'exit 3', enter: true });
  const [notice] = await waitFor(() => (heard.get(inside)!.length ? heard.get(inside)! : null), { what: 'the childFinished notification' });
  expect(notice).toMatchObject({
    level: 'notice',
    logger: 'termio',
    data: {
      event: 'childFinished',
      child: child.id,
      parent,
      kind: 'exited',
      text: expect.stringContaining(`[termio] child (${child.id}, shell) ended: "exited with code 3`),
    },
  });
  // The server outside every session has no children to hear of.
  expect(heard.get(outside)).toEqual([]);

  const { tools } = await outside.listTools();
  const fanout = tools.find((t) => t.name === 'sessions_fanout')?.inputSchema as { properties: Record<string, unknown>; required: string[] };
  expect(Object.keys(fanout.properties).sort()).toEqual(['agents', 'base', 'cwd', 'prompt']);
  expect(fanout.required.sort()).toEqual(['agents', 'prompt']);
  const refused = await call(inside, 'sessions_fanout', { agents: ['nope'], prompt: 'Try it' });
  expect(refused).toMatchObject({
    isError: true,
    content: [{ text: "spawnFailed: sessions.fanout: nothing was started: no agent with id 'nope' (see termio agents list)" }],
  });
  const notARepo = await call(inside, 'sessions_fanout', { agents: ['terminal'], prompt: 'Try it' });
  expect(notARepo.content[0]?.text).toBe(`worktreeRefused: sessions.fanout: nothing was started: '${host.home}' is not in a git repository`);
});
