// The TOML marked block (re-parsed with smol-toml as the host does) and the OpenCode plugin file.
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { editHookConfig, isOurPlugin, type HookEditRequest } from '../../../src/protocol/hooks';

const reporter = { reporterPath: '/opt/termio/bin/termio-hook', nodePath: '/usr/bin/node' };
const tomlReq: HookEditRequest = {
  agentId: 'codex',
  reporter,
  hooks: {
    type: 'toml',
    file: '~/.codex/config.toml',
    dialect: 'codex',
    events: [
      { on: 'PreToolUse', state: 'working', matcher: 'Bash' },
      { on: 'Stop', state: 'done' },
    ],
  },
};

const userToml = `# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[tui]
notifications = ["agent-turn-complete", "approval-requested"]

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "say codex finished"

[projects."/Users/me/src/app"]
trust_level = "trusted"
`;

function edit(op: 'install' | 'uninstall', text: string | null): string {
  const e = editHookConfig(op, text, tomlReq);
  if (!e.ok) throw new Error(e.error);
  return e.text as string;
}

describe('TOML hooks block', () => {
  for (const [name, original] of [
    ['a real config with the user\'s own hooks', userToml],
    ['no final newline', 'model = "o3"'],
    ['CRLF', 'model = "o3"\r\n[tui]\r\nanimations = false\r\n'],
    ['empty', ''],
  ] as const) {
    it(`${name}: install twice is stable, re-parses, uninstall restores every byte`, () => {
      const once = edit('install', original);
      expect(editHookConfig('install', once, tomlReq)).toMatchObject({ ok: true, changed: false, text: once });
      const doc = parseToml(once) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
      const ours = doc.hooks.Stop!.flatMap((g) => g.hooks).filter((h) => h.command.includes('termio-hook'));
      expect(ours).toEqual([{ type: 'command', command: '[ -z "$TERMIO_SESSION" ] || /usr/bin/node /opt/termio/bin/termio-hook codex done Stop' }]);
      expect(doc.hooks.PreToolUse![0]!.matcher).toBe('Bash');
      expect(edit('uninstall', once)).toBe(original);
    });
  }

  it('keeps the user\'s hooks of the same event', () => {
    const doc = parseToml(edit('install', userToml)) as { hooks: { Stop: Array<{ hooks: Array<{ command: string }> }> } };
    expect(doc.hooks.Stop.map((g) => g.hooks[0]!.command)).toEqual([
      'say codex finished',
      expect.stringContaining('termio-hook codex done Stop'),
    ]);
  });

  it('a block missing its end marker is an error', () => {
    const broken = edit('install', userToml).replace('# <<< termio hooks <<<', '');
    expect(editHookConfig('uninstall', broken, tomlReq)).toMatchObject({ ok: false });
  });
});

describe('OpenCode plugin', () => {
  const req: HookEditRequest = {
    agentId: 'opencode',
    reporter,
    hooks: {
      type: 'plugin',
      dir: '~/.config/opencode/plugins',
      dialect: 'opencode',
      events: [
        { on: 'tool.execute.before', state: 'working' },
        { on: 'permission.updated', state: 'attention' },
        { on: 'session.idle', state: 'done' },
      ],
    },
  };

  it('writes our own file, idempotently, and deletes it on uninstall', () => {
    const e = editHookConfig('install', null, req);
    expect(e.ok).toBe(true);
    const text = (e as { text: string }).text;
    expect(isOurPlugin(text)).toBe(true);
    expect(text).toContain('"session.idle":"done"');
    expect(text).toContain('"tool.execute.before": async (input)');
    expect(editHookConfig('install', text, req)).toMatchObject({ ok: true, changed: false });
    expect(editHookConfig('uninstall', text, req)).toMatchObject({ ok: true, text: null, changed: true });
  });

  it('never overwrites or deletes a file it did not write', () => {
    expect(editHookConfig('install', 'export const Mine = 1;\n', req)).toMatchObject({ ok: false });
    expect(editHookConfig('uninstall', 'export const Mine = 1;\n', req)).toMatchObject({ ok: false });
  });
});

describe('Kimi Code TOML hooks', () => {
  const kimiReq: HookEditRequest = {
    agentId: 'kimi',
    reporter,
    hooks: {
      type: 'toml',
      file: '~/.kimi-code/config.toml',
      dialect: 'kimi',
      events: [
        { on: 'PreToolUse', state: 'working', matcher: 'Bash' },
        { on: 'Stop', state: 'done' },
      ],
    },
  };
  const user = 'default_model = "kimi-k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "notify-send done"\n';

  it('writes flat [[hooks]] tables of only event, matcher, command and timeout, and removes them byte for byte', () => {
    const r = editHookConfig('install', user, kimiReq);
    if (!r.ok || r.text === null) throw new Error('install failed');
    const parsed = parseToml(r.text) as { hooks: Record<string, unknown>[] };
    expect(parsed.hooks).toHaveLength(3);
    expect(parsed.hooks[0]).toEqual({ event: 'Stop', command: 'notify-send done' });
    expect(parsed.hooks[1]).toEqual({ event: 'PreToolUse', matcher: 'Bash', command: "[ -z \"$TERMIO_SESSION\" ] || /usr/bin/node /opt/termio/bin/termio-hook kimi working PreToolUse", timeout: 5 });
    for (const h of parsed.hooks.slice(1)) expect(Object.keys(h).every((k) => ['event', 'matcher', 'command', 'timeout'].includes(k))).toBe(true);
    const removed = editHookConfig('uninstall', r.text, kimiReq);
    expect(removed).toMatchObject({ ok: true, text: user });
  });

  it('never writes an event Kimi Code does not know (it would refuse its whole config)', () => {
    const bad = { ...kimiReq, hooks: { ...kimiReq.hooks, events: [{ on: 'TaskComplete', state: 'done' as const }] } };
    expect(editHookConfig('install', user, bad)).toEqual({ ok: false, error: expect.stringMatching(/^Kimi Code has no hook event 'TaskComplete' \(known: PreToolUse, /) });
  });
});
