// `termio mcp` (the real bin/termio, started by the MCP SDK's own client over stdio) against a real
// host: the tools are listed with input schemas derived from the control protocol's; a login
// shell is spawned, `echo hi` is sent, waited for and read back; and a server started inside
// that session (with the session's TERMIO_SESSION and secret, as an agent there would start it)
// speaks as that session: what it spawns is the session's child, and bypass is refused, asked
// for or by the user's setting.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import * as z from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
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
  const screen = async (of: Client, sid: string) => (await ok<{ lines: string[] }>(of, 'sessions_read', { id: sid })).lines;
  await waitFor(async () => (await screen(client, id)).includes('hi'), { what: 'hi on the shell screen, read through sessions_read' });
  const lines = await screen(client, id);
  // The command line typed (after the login shell's own prompt), then its output.
  expect(lines.findIndex((l) => l.endsWith(' echo hi'))).toBe(lines.indexOf('hi') - 1);
  const listed = await ok<{ sessions: { id: string }[] }>(client, 'sessions_list', {});
  expect(listed.sessions.map((s) => s.id)).toContain(id);

  // An agent inside that session starts its server with the session's environment.
  await ok(client, 'sessions_send', { id, text: 'echo "S=$TERMIO_SESSION_SECRET"', enter: true });
  const secretLine = await waitFor(async () => (await screen(client, id)).find((l) => /^S=\S+$/.test(l)), { what: "the session's secret echoed" });
  const secret = secretLine.slice(2);
  const inside = await mcpClient({ ...host.env, TERMIO_SESSION: id, TERMIO_SESSION_SECRET: secret }, host.home);

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
