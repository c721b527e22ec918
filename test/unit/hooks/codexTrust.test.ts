// Codex hook trust: the identity Codex hashes, the hooks.state keys of our entries, and the trust
// block in config.toml — written beside the user's own trust tables, which stay byte for byte,
// removed on uninstall, and reported with the one step to take when it cannot be recorded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentHookStatus, installAgentHooks, uninstallAgentHooks } from '../../../src/app/services/hookInstaller';
import { termioPaths } from '../../../src/app/services/paths';
import { codexEventLabel, codexHookIdentity, codexTrustEntries, withCodexTrust, withoutCodexTrust } from '../../../src/protocol/hooks';

const reporter = { reporterPath: '/opt/termio/bin/termio-hook' };
const agent = {
  agentId: 'codex',
  hooks: {
    type: 'json' as const,
    file: '~/.codex/hooks.json',
    dialect: 'codex',
    events: [
      { on: 'UserPromptSubmit', state: 'working' as const },
      { on: 'Stop', state: 'done' as const },
    ],
  },
};

describe('what Codex hashes', () => {
  it('labels events in snake_case', () => {
    expect(['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Stop'].map(codexEventLabel)).toEqual([
      'user_prompt_submit',
      'pre_tool_use',
      'permission_request',
      'stop',
    ]);
  });
  it('hashes the normalised handler: timeout 600 and async false by default, keys sorted, no whitespace', () => {
    expect(codexHookIdentity('Stop', undefined, { type: 'command', command: 'x y' })).toBe(
      '{"event_name":"stop","hooks":[{"async":false,"command":"x y","timeout":600,"type":"command"}]}',
    );
    expect(codexHookIdentity('PreToolUse', '^Bash$', { type: 'command', command: 'c', timeout: 5, statusMessage: 'hi' })).toBe(
      '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"c","statusMessage":"hi","timeout":5,"type":"command"}],"matcher":"^Bash$"}',
    );
  });
  it("keys our entries by hooks.json path, event, group and hook index, skipping the user's", () => {
    const text = JSON.stringify({
      hooks: {
        Stop: [
          { hooks: [{ type: 'command', command: 'mine' }] },
          {
            hooks: [
              { type: 'command', command: 'notify' },
              { type: 'command', command: '/opt/termio/bin/termio-hook codex done Stop' },
            ],
          },
        ],
      },
    });
    expect(codexTrustEntries('/h/.codex/hooks.json', text).map((e) => e.key)).toEqual(['/h/.codex/hooks.json:stop:1:1']);
  });
  it('the block leaves any text around it byte for byte', () => {
    for (const user of ['', 'model = "o3"\n', 'model = "o3"', 'a = 1\r\n\r\n', '[hooks.state."/x:stop:0:0"]\ntrusted_hash = "sha256:ab"\n']) {
      const withBlock = withCodexTrust(user, [{ key: '/h/.codex/hooks.json:stop:0:0', hash: 'sha256:00' }]);
      expect(withBlock).toContain(
        '[hooks.state."/h/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:00"'.replace(/\n/g, user.includes('\r\n') ? '\r\n' : '\n'),
      );
      expect(withoutCodexTrust(withBlock)).toBe(user);
      expect(withCodexTrust(withBlock, [])).toBe(user);
    }
  });
});

describe('recording the trust on install', () => {
  let home: string;
  const opts = () => ({ paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter });
  const configFile = () => join(home, '.codex', 'config.toml');
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'termio-codex-trust-'));
    mkdirSync(join(home, '.codex'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("records exactly our entries beside the user's own trust, and uninstall gives the file back byte for byte", () => {
    const user = '# my codex\nmodel = "gpt-5"\n\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:1234"\nenabled = true\n';
    writeFileSync(configFile(), user);
    const r = installAgentHooks(agent, opts());
    expect(r).toMatchObject({ state: 'installed', trust: { state: 'recorded', file: configFile() } });
    expect(r.note).toBeUndefined();
    const text = readFileSync(configFile(), 'utf8');
    expect(text.startsWith(user)).toBe(true);
    const hooksFile = join(home, '.codex', 'hooks.json');
    for (const e of codexTrustEntries(hooksFile, readFileSync(hooksFile, 'utf8'))) {
      expect(text).toContain(`[hooks.state.${JSON.stringify(e.key)}]\ntrusted_hash = "sha256:${createHash('sha256').update(e.identity).digest('hex')}"`);
    }
    expect(codexTrustEntries(hooksFile, readFileSync(hooksFile, 'utf8')).map((e) => e.key)).toEqual([
      `${hooksFile}:user_prompt_submit:0:0`,
      `${hooksFile}:stop:0:0`,
    ]);
    expect(installAgentHooks(agent, opts())).toMatchObject({ action: 'unchanged', trust: { state: 'recorded' } });
    expect(uninstallAgentHooks(agent, opts())).toMatchObject({ state: 'absent' });
    expect(readFileSync(configFile(), 'utf8')).toBe(user);
  });

  it('a config.toml that did not exist is gone again after uninstall', () => {
    installAgentHooks(agent, opts());
    expect(existsSync(configFile())).toBe(true);
    uninstallAgentHooks(agent, opts());
    expect(existsSync(configFile())).toBe(false);
  });

  it('when trust cannot be recorded, install and status say so with the one step to take', () => {
    writeFileSync(configFile(), 'model = \n');
    const r = installAgentHooks(agent, opts());
    expect(r).toMatchObject({ state: 'installed', trust: { state: 'failed' } });
    expect(r.note).toMatch(
      /^Codex will skip Termio's hooks until they are trusted: .*config\.toml does not parse as TOML.*To fix: open Codex, type \/hooks and trust Termio's hooks/,
    );
    expect(readFileSync(configFile(), 'utf8')).toBe('model = \n');
    writeFileSync(configFile(), '');
    expect(agentHookStatus(agent, opts()).note).toMatch(
      /^Codex will skip 2 of Termio's hooks until they are trusted\. To fix: run `termio hooks install --agent codex` again/,
    );
    installAgentHooks(agent, opts());
    expect(agentHookStatus(agent, opts())).toMatchObject({ trust: { state: 'recorded' } });
  });
});
