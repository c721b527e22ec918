// Termio's MCP server registered by `termio hooks install` in each bundled agent's own MCP config
// (Claude Code's ~/.claude.json, Codex's config.toml, Gemini CLI's and Qwen Code's settings.json),
// run through the real command on real files in a temporary HOME: what it writes, that a second
// install changes nothing, the backups, `termio mcp status`, a stale entry rewritten, and that
// uninstall gives every user file back byte for byte.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { run as hooksCommand } from '../../../src/app/cli/hooks';
import { run as mcpCommand } from '../../../src/app/cli/mcp';
import type { CliIo } from '../../../src/app/cli/cliIo';

const { parse: parseToml } = require('smol-toml') as { parse: (text: string) => Record<string, unknown> };

const repoRoot = resolve(__dirname, '..', '..', '..');
let home: string;
let termioHome: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-mcp-reg-'));
  termioHome = join(home, 'termio-home');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

async function termio(group: 'hooks' | 'mcp', ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { PATH: process.env.PATH, HOME: home, TERMIO_HOME: termioHome }, cwd: home };
  const code = await (group === 'hooks' ? hooksCommand : mcpCommand)(args, io);
  return { code, out, err };
}

function write(rel: string, text: string): string {
  const file = join(home, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const read = (file: string) => readFileSync(file, 'utf8');

const USER_FILES = {
  claude: ['.claude.json', '{\n    "numStartups": 3,\n    "mcpServers": {\n        "mine": { "command": "my-server" }\n    }\n}\n'],
  codex: ['.codex/config.toml', 'model = "o3"\n\n[mcp_servers.mine]\ncommand = "my-server"'],
  qwen: ['.qwen/settings.json', '{\n  // my theme\n  "theme": "dark",\n}\n'],
} as const;

it('registers the server in each agent, idempotently and backed up, reports it, and removes exactly what it wrote', async () => {
  const files = Object.fromEntries(Object.entries(USER_FILES).map(([id, [rel, text]]) => [id, { file: write(rel, text), text }]));
  const entry = { command: process.execPath, args: [join(repoRoot, 'bin', 'termio'), 'mcp'], env: { TERMIO_HOME: termioHome } };

  const first = await termio('hooks', 'install', '--json');
  expect(first.code).toBe(0);
  const results = JSON.parse(first.out).mcp as { agentId: string; state: string; action: string; backup?: string }[];
  expect(results.filter((r) => ['claude', 'codex', 'gemini', 'qwen'].includes(r.agentId)).map((r) => [r.agentId, r.state, r.action])).toEqual([
    ['claude', 'installed', 'written'],
    ['codex', 'installed', 'written'],
    ['gemini', 'installed', 'written'],
    ['qwen', 'installed', 'written'],
  ]);
  // Each agent reads its own form; the user's servers and keys stay beside ours.
  const claude = JSON.parse(read(files.claude!.file));
  expect(claude).toMatchObject({ numStartups: 3, mcpServers: { mine: { command: 'my-server' }, termio: entry } });
  expect(read(files.claude!.file)).toContain('\n        "termio": {\n            "command"');
  const codex = parseToml(read(files.codex!.file)).mcp_servers as Record<string, Record<string, unknown>>;
  expect(codex.mine).toEqual({ command: 'my-server' });
  expect(codex.termio).toEqual({ ...entry, env_vars: ['TERMIO_SESSION', 'TERMIO_SESSION_SECRET'] });
  expect(JSON.parse(read(join(home, '.gemini', 'settings.json'))).mcpServers).toEqual({ termio: entry });
  expect(read(files.qwen!.file)).toContain('// my theme');
  // The backup is the file just before our first edit of it: Claude Code's as the user left it; Codex's
  // and Qwen Code's after their hooks went in (the same file), still without our server.
  for (const [id, mark] of [
    ['claude', '"mine"'],
    ['codex', '[mcp_servers.mine]'],
    ['qwen', '// my theme'],
  ] as const) {
    const r = results.find((x) => x.agentId === id);
    expect(r?.backup).toBe(
      join(termioHome, 'backups', 'mcp', id, `${id === 'codex' ? 'config.toml' : id === 'claude' ? '.claude.json' : 'settings.json'}.orig`),
    );
    const backup = read(r!.backup!);
    if (id === 'claude') expect(backup).toBe(files.claude!.text);
    expect(backup).toContain(mark);
    expect(backup).not.toMatch(/mcp_servers\.termio|"termio":/);
  }
  const written = Object.fromEntries(Object.entries(files).map(([id, f]) => [id, read(f.file)]));
  const again = await termio('hooks', 'install', '--json');
  expect((JSON.parse(again.out).mcp as { action: string }[]).every((r) => r.action === 'unchanged')).toBe(true);
  for (const [id, f] of Object.entries(files)) expect(read(f.file)).toBe(written[id]);

  const status = await termio('mcp', 'status');
  expect(status.code).toBe(0);
  expect(status.out).toContain('claude     mcp installed  ~/.claude.json');
  expect(status.out).toContain('codex      mcp installed  ~/.codex/config.toml');

  // Another checkout's entry is stale, and install points it back at this one.
  writeFileSync(files.claude!.file, read(files.claude!.file).replace(join(repoRoot, 'bin', 'termio'), '/gone/bin/termio'));
  const stale = JSON.parse((await termio('mcp', 'status', '--json')).out).mcp as { agentId: string; state: string }[];
  expect(stale.find((r) => r.agentId === 'claude')?.state).toBe('stale');
  await termio('hooks', 'install', '--agent', 'claude');
  expect(JSON.parse(read(files.claude!.file)).mcpServers.termio).toEqual(entry);

  const removed = await termio('hooks', 'uninstall', '--json');
  expect(removed.code).toBe(0);
  for (const f of Object.values(files)) expect(read(f.file)).toBe(f.text);
  expect(read(join(home, '.gemini', 'settings.json'))).not.toContain('termio');
  const after = JSON.parse((await termio('mcp', 'status', '--json')).out).mcp as { state: string }[];
  expect(after.every((r) => r.state === 'absent')).toBe(true);
});

it('leaves a config that does not parse untouched and says where', async () => {
  const file = write('.codex/config.toml', 'model = "o3\n');
  const r = await termio('hooks', 'install', '--agent', 'codex', '--json');
  expect(r.code).toBe(1);
  const codex = (JSON.parse(r.out).mcp as { agentId: string; state: string; error?: string }[]).find((x) => x.agentId === 'codex');
  expect(codex?.state).toBe('error');
  expect(codex?.error).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}: not valid TOML: .*; left untouched$`));
  expect(read(file)).toBe('model = "o3\n');
  expect(existsSync(join(termioHome, 'backups', 'mcp', 'codex'))).toBe(false);
});
