// The hook installer and `termio hooks` on real files in a temporary HOME and TERMIO_HOME:
// backups before the first edit, unparsable configs reported and untouched, symlinks kept,
// TOML re-parsed, status per agent.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentHookStatus, defaultReporterLocation, installAgentHooks, uninstallAgentHooks, type AgentHooks } from '../../../src/app/services/hookInstaller';
import { termioPaths } from '../../../src/app/services/paths';
import { run } from '../../../src/app/cli/hooks';

let home: string;
let opts: Parameters<typeof installAgentHooks>[1];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-inst-'));
  opts = { paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter: defaultReporterLocation() };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const claude: AgentHooks = {
  agentId: 'claude',
  hooks: {
    type: 'json',
    file: '~/.claude/settings.json',
    dialect: 'claude',
    events: [
      { on: 'Stop', state: 'done' },
      { on: 'PreToolUse', state: 'working' },
    ],
  },
};
const codexToml: AgentHooks = {
  agentId: 'codex',
  hooks: { type: 'toml', file: '~/.codex/config.toml', dialect: 'codex', events: [{ on: 'Stop', state: 'done' }] },
};
const userSettings = '{\n  "model": "opus", // comment\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "say hi" } ] } ] }\n}\n';

function write(rel: string, text: string): string {
  const p = join(home, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('hook installer', () => {
  it('installs, backs the original up once, is idempotent, and uninstall restores the bytes', () => {
    const file = write('.claude/settings.json', userSettings);
    const r = installAgentHooks(claude, opts);
    expect(r).toMatchObject({ state: 'installed', action: 'written', events: ['Stop', 'PreToolUse'], missing: [] });
    expect(readFileSync(r.backup!, 'utf8')).toBe(userSettings);
    expect(installAgentHooks(claude, opts)).toMatchObject({ state: 'installed', action: 'unchanged' });
    expect(uninstallAgentHooks(claude, opts)).toMatchObject({ state: 'absent', action: 'written' });
    expect(readFileSync(file, 'utf8')).toBe(userSettings);
    expect(agentHookStatus(claude, opts)).toMatchObject({ state: 'absent' });
  });

  it('a config that does not parse is reported and left untouched', () => {
    const broken = '{ "hooks": { "Stop": [ }\n';
    const file = write('.claude/settings.json', broken);
    const r = installAgentHooks(claude, opts);
    expect(r).toMatchObject({ state: 'unparsable', action: 'none', error: expect.stringContaining(file) });
    expect(readFileSync(file, 'utf8')).toBe(broken);
    const t = write('.codex/config.toml', 'model = "o3\n');
    expect(installAgentHooks(codexToml, opts)).toMatchObject({ state: 'unparsable', error: expect.stringMatching(/not valid TOML/) });
    expect(readFileSync(t, 'utf8')).toBe('model = "o3\n');
  });

  it("a TOML block that would clash with the user's hooks table is refused", () => {
    const text = 'model = "o3"\n\n[hooks]\nStop = [ { hooks = [ { type = "command", command = "x" } ] } ]\n';
    const t = write('.codex/config.toml', text);
    expect(installAgentHooks(codexToml, opts)).toMatchObject({ state: 'error', error: expect.stringMatching(/would make it invalid/) });
    expect(readFileSync(t, 'utf8')).toBe(text);
  });

  it('writes through a symlinked config (dotfile managers) and keeps the link', () => {
    const real = write('dotfiles/claude-settings.json', userSettings);
    mkdirSync(join(home, '.claude'));
    symlinkSync(real, join(home, '.claude', 'settings.json'));
    installAgentHooks(claude, opts);
    expect(lstatSync(join(home, '.claude', 'settings.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('termio-hook');
  });

  it('creates a missing file and removes our own file on uninstall', () => {
    const copilot: AgentHooks = {
      agentId: 'copilot',
      hooks: { type: 'json', dir: '~/.copilot/hooks', dialect: 'copilot', events: [{ on: 'agentStop', state: 'done' }] },
    };
    expect(installAgentHooks(copilot, opts)).toMatchObject({ state: 'installed', file: join(home, '.copilot', 'hooks', 'termio.json') });
    expect(uninstallAgentHooks(copilot, opts)).toMatchObject({ action: 'removed', state: 'absent' });
    expect(existsSync(join(home, '.copilot', 'hooks', 'termio.json'))).toBe(false);
  });
});

describe('termio hooks', () => {
  function cli(args: string[]) {
    let out = '';
    let err = '';
    const env = { HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: process.env.PATH };
    return run(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: home }).then((code) => ({ code, out, err }));
  }

  it('install --agent claude, status --json, uninstall', async () => {
    write('.claude/settings.json', userSettings);
    const i = await cli(['install', '--agent', 'claude']);
    expect(i).toMatchObject({ code: 0, err: '' });
    expect(i.out).toMatch(/^claude\s+installed\s+~\/\.claude\/settings\.json\s+\(written\)/);
    const s = await cli(['status', '--json']);
    const body = JSON.parse(s.out) as { schemaVersion: number; ok: boolean; agents: Array<{ agentId: string; state: string; note?: string }> };
    expect(body).toMatchObject({ schemaVersion: 1, ok: true });
    const rows = body.agents;
    expect(rows.find((r) => r.agentId === 'claude')).toMatchObject({ state: 'installed' });
    expect(rows.find((r) => r.agentId === 'codex')).toMatchObject({ state: 'absent' });
    expect((await cli(['uninstall', '--agent', 'claude'])).code).toBe(0);
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe(userSettings);
  });

  it('bad usage and unknown agents are exit code 2; a broken config is exit code 1', async () => {
    expect((await cli(['frob'])).code).toBe(2);
    expect((await cli(['install', '--agent', 'nope'])).code).toBe(2);
    expect((await cli(['install', '--agent', 'aider'])).err).toMatch(/declares no hooks/);
    write('.claude/settings.json', '{ broken');
    const r = await cli(['install', '--agent', 'claude']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/unparsable/);
  });
});
