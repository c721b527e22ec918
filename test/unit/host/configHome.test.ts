// configHome: with the agent's config variable set (CLAUDE_CONFIG_DIR, CODEX_HOME), hooks, skills
// and the session store move under its value; unset, the manifest's own paths stand. Through the
// real `termio hooks install`, and the pure function itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withConfigHome } from '../../../src/protocol/configHome';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { repoRoot } from '../../helpers/controlHost';

let home = '';
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = '';
});

const bundled = (id: string) => parseManifest(readFileSync(join(repoRoot, 'agents', `${id}.json`), 'utf8'), `${id}.json`).manifest!;

describe('withConfigHome', () => {
  it('moves the hook file, skills, store and MCP config under the variable, whole folder names only', () => {
    const m = withConfigHome(bundled('claude'), { CLAUDE_CONFIG_DIR: '/cfg/claude/' });
    expect(m.hooks?.file).toBe('/cfg/claude/settings.json');
    expect(m.skills).toBe('/cfg/claude/skills');
    expect(m.resume?.storeRoot).toBe('/cfg/claude/projects');
    // Claude Code's MCP config lies beside ~/.claude, and inside the folder the variable names.
    expect(m.mcp?.file).toBe('/cfg/claude/.claude.json');
    expect(bundled('claude').mcp?.file).toBe('~/.claude.json');
    const codex = withConfigHome(bundled('codex'), { CODEX_HOME: '~/work/codex' });
    expect(codex.hooks?.file).toBe('~/work/codex/hooks.json');
    expect(codex.resume?.discover?.root).toBe('~/work/codex/sessions');
    expect(codex.mcp).toEqual({ file: '~/work/codex/config.toml', type: 'toml' });
    // Unset or empty: as written. A folder that merely starts with the same letters stays.
    expect(withConfigHome(bundled('codex'), { CODEX_HOME: '' })).toEqual(bundled('codex'));
    const near = { ...bundled('codex'), skills: '~/.codex-extra/skills' };
    expect(withConfigHome(near, { CODEX_HOME: '/x' }).skills).toBe('~/.codex-extra/skills');
  });
});

describe('termio hooks install with the config variable set', () => {
  it('writes Claude Code hooks, the Termio skill and the MCP server under CLAUDE_CONFIG_DIR, not ~/.claude', () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-confighome-')));
    const cfg = join(home, 'elsewhere');
    mkdirSync(cfg);
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'termio'), 'hooks', 'install', '--agent', 'claude'], {
      env: { HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: process.env.PATH ?? '', CLAUDE_CONFIG_DIR: cfg },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(readFileSync(join(cfg, 'settings.json'), 'utf8')).hooks.Stop).toBeDefined();
    expect(existsSync(join(cfg, 'skills', 'termio', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(home, '.claude'))).toBe(false);
    // Termio's MCP server goes where Claude Code then reads its servers: $CLAUDE_CONFIG_DIR/.claude.json.
    expect(JSON.parse(readFileSync(join(cfg, '.claude.json'), 'utf8')).mcpServers.termio.args).toEqual([join(repoRoot, 'bin', 'termio'), 'mcp']);
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
  });
});
