// Dialect transforms on realistic configs: the user's own hooks, comments, odd indentation,
// unknown keys. Install twice, uninstall, compare byte for byte.
import { describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { editHookConfig, JSON_DIALECTS, type HookEditRequest, type HooksDeclaration } from '../../../src/protocol/hooks';

const reporter = { reporterPath: '/Applications/Termio.app/Contents/Resources/bin/termio-hook', nodePath: '/Applications/Termio.app/Contents/MacOS/qode' };

function req(dialect: string, events: HooksDeclaration['events'], agentId = dialect): HookEditRequest {
  return { agentId, reporter, hooks: { type: 'json', file: '~/x.json', dialect, events } };
}

function install(text: string | null, r: HookEditRequest): string {
  const e = editHookConfig('install', text, r);
  if (!e.ok) throw new Error(e.error);
  return e.text as string;
}

function uninstall(text: string, r: HookEditRequest): string | null {
  const e = editHookConfig('uninstall', text, r);
  if (!e.ok) throw new Error(e.error);
  return e.text;
}

const claudeEvents: HooksDeclaration['events'] = [
  { on: 'UserPromptSubmit', state: 'working' },
  { on: 'PreToolUse', state: 'working' },
  { on: 'PermissionRequest', state: 'attention' },
  { on: 'Notification', state: 'attention', matcher: 'permission_prompt' },
  { on: 'Stop', state: 'done' },
];

const claudeUserSettings = `{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": { "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"], "deny": [] },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [ { "type": "command", "command": "~/bin/audit-bash.sh", "timeout": 30 } ]
            }
        ],
        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]
    },
    "futureKeyNobodyKnows": { "nested": [1, 2, 3] },
    "statusLine": {"type":"command","command":"~/.claude/statusline.sh"}
}
`;

const withComments = `// my settings, kept in git
{
\t/* tabs, comments and a trailing comma */
\t"hooks": {
\t\t"Notification": [
\t\t\t{ "matcher": "", "hooks": [{ "type": "command", "command": "notify-send Claude" }] }, // mine
\t\t],
\t},
\t"env": { "FOO": "1" },
}
`;

const crlfOddIndent = '{\r\n   "theme": "dark",\r\n   "hooks": { "SessionEnd": [ { "hooks": [ { "type": "command", "command": "cleanup" } ] } ] }\r\n}\r\n';

describe('claude-shaped JSON dialects', () => {
  for (const dialect of ['claude', 'qwen', 'droid', 'gemini', 'codex', 'grok']) {
    for (const [name, original] of [
      ['user settings with hooks and unknown keys', claudeUserSettings],
      ['comments, tabs, trailing commas', withComments],
      ['CRLF and 3-space indent', crlfOddIndent],
    ] as const) {
      it(`${dialect}: ${name}: install twice is stable, uninstall restores every byte`, () => {
        const r = req(dialect, claudeEvents);
        const once = install(original, r);
        expect(once).not.toBe(original);
        const twice = editHookConfig('install', once, r);
        expect(twice).toMatchObject({ ok: true, changed: false, text: once });
        // The user's entries are all still there, untouched.
        const commands = (t: string) => [...t.matchAll(/"(?:command|bash)":\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
        expect(commands(once).filter((c) => !c!.includes('termio-hook'))).toEqual(commands(original));
        expect(parse(once)).toMatchObject({ hooks: expect.any(Object) });
        const back = uninstall(once, r);
        expect(back).toBe(original);
      });
    }
  }

  it('writes one entry per event with the state baked into the command', () => {
    const text = install(claudeUserSettings, req('claude', claudeEvents));
    const doc = parse(text) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
    const ours = (event: string) => doc.hooks[event]!.filter((g) => g.hooks.some((h) => h.command.includes('termio-hook')));
    expect(ours('PreToolUse')).toHaveLength(1);
    expect(ours('PreToolUse')[0]!.hooks[0]!.command).toBe(
      `[ -z "$TERMIO_SESSION" ] || /Applications/Termio.app/Contents/MacOS/qode /Applications/Termio.app/Contents/Resources/bin/termio-hook claude working PreToolUse`,
    );
    expect(ours('Notification')[0]!.matcher).toBe('permission_prompt');
    expect(ours('PermissionRequest')[0]!.hooks[0]!.command).toMatch(/ claude attention PermissionRequest$/);
    // The user's Stop hook comes first and is unchanged.
    expect(doc.hooks.Stop![0]!.hooks[0]!.command).toBe('say done');
  });

  it('creates a new file in a plain style', () => {
    const text = install(null, req('claude', [{ on: 'Stop', state: 'done' }]));
    expect(text).toMatchInlineSnapshot(`
      "{
        "hooks": {
          "Stop": [
            {
              "hooks": [
                {
                  "type": "command",
                  "command": "[ -z \\"$TERMIO_SESSION\\" ] || /Applications/Termio.app/Contents/MacOS/qode /Applications/Termio.app/Contents/Resources/bin/termio-hook claude done Stop"
                }
              ]
            }
          ]
        }
      }
      "
    `);
  });

  it("a changed manifest replaces our entries and leaves the user's", () => {
    const a = install(claudeUserSettings, req('claude', claudeEvents));
    const b = install(a, req('claude', [{ on: 'Stop', state: 'done' }]));
    expect(b.match(/termio-hook/g)).toHaveLength(1);
    expect(uninstall(b, req('claude', []))).toBe(claudeUserSettings);
  });

  it('only removes our inner entry from a group the user added a hook to', () => {
    const a = install('{"hooks":{}}', req('claude', [{ on: 'Stop', state: 'done' }]));
    const doc = parse(a) as { hooks: { Stop: Array<{ hooks: unknown[] }> } };
    doc.hooks.Stop[0]!.hooks.push({ type: 'command', command: 'user-added' });
    const mixed = JSON.stringify(doc, null, 2);
    const back = uninstall(mixed, req('claude', []));
    expect(back).not.toContain('termio-hook');
    expect(back).toContain('user-added');
  });

  it("uninstall keeps a user's own hook that merely mentions termio-hook; ours, in any shape we ever wrote, go", () => {
    const users = [
      '~/bin/termio-hook-logger.sh',
      'echo termio-hook',
      '/usr/local/bin/termio-hook --my-own-flags',
      'termio-hook claude done Stop',
      '/opt/termio-hook claude done Stop && notify-send done',
      '/opt/termio-hook claude sleeping Stop',
    ];
    const ours = [
      `[ -z "$TERMIO_SESSION" ] || /home/u/.termio/bin/termio-hook claude done Stop`,
      `/usr/bin/node '/old checkout/bin/termio-hook' claude done Stop`,
      `'/home/u/src/termio/native/termio-hook/build/termio-hook' claude idle ''`,
    ];
    const doc = { hooks: { Stop: [...users, ...ours].map((command) => ({ hooks: [{ type: 'command', command }] })) } };
    const back = uninstall(JSON.stringify(doc, null, 2), req('claude', []));
    expect((parse(back!) as typeof doc).hooks.Stop.map((g) => g.hooks[0]!.command)).toEqual(users);
  });

  it('a file that does not parse is an error and no text', () => {
    for (const bad of ['{"hooks": {', '[1,2]', '{"hooks": []}', '{"hooks": {"Stop": {"x": 1}}}']) {
      const e = editHookConfig('install', bad, req('claude', [{ on: 'Stop', state: 'done' }]));
      expect(e.ok, bad).toBe(false);
    }
    expect(editHookConfig('uninstall', '{ nope', req('claude', []))).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
  });

  it('gemini entries carry a name and a timeout in milliseconds', () => {
    const text = install('{}', req('gemini', [{ on: 'AfterAgent', state: 'done' }]));
    const doc = parse(text) as { hooks: { AfterAgent: Array<{ hooks: Array<Record<string, unknown>> }> } };
    expect(doc.hooks.AfterAgent[0]!.hooks[0]).toMatchObject({ type: 'command', name: 'termio', timeout: 5000 });
  });

  it('codex install carries the trust-gate note', () => {
    const e = editHookConfig('install', null, req('codex', [{ on: 'Stop', state: 'done' }]));
    expect(e).toMatchObject({ ok: true, note: expect.stringMatching(/trust/) });
  });

  it('grok uses its own file: uninstall deletes it when nothing else is left', () => {
    const r: HookEditRequest = {
      agentId: 'grok',
      reporter,
      hooks: { type: 'json', file: '~/.grok/hooks/termio.json', dialect: 'grok', events: [{ on: 'Stop', state: 'done' }] },
    };
    const e = editHookConfig('install', null, r);
    expect(e.ok).toBe(true);
    expect(editHookConfig('uninstall', (e as { text: string }).text, r)).toMatchObject({ ok: true, text: null, changed: true });
  });
});

describe('flat JSON dialects', () => {
  const cursorUser = `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }],
    "stop": [{ "command": "./hooks/audit.sh" }]
  }
}
`;

  it('cursor: install twice, uninstall restores every byte', () => {
    const r = req('cursor', [
      { on: 'beforeSubmitPrompt', state: 'working' },
      { on: 'stop', state: 'done' },
    ]);
    const once = install(cursorUser, r);
    expect(install(once, r)).toBe(once);
    const doc = parse(once) as { hooks: Record<string, Array<{ command: string }>> };
    expect(doc.hooks.stop!.map((h) => h.command)).toEqual(['./hooks/audit.sh', `${reporter.nodePath} ${reporter.reporterPath} cursor done stop`]);
    expect(uninstall(once, r)).toBe(cursorUser);
  });

  it('cursor: never writes an unknown event name (it would void the whole file)', () => {
    const e = editHookConfig(
      'install',
      cursorUser,
      req('cursor', [
        { on: 'stop', state: 'done' },
        { on: 'notification', state: 'attention' },
      ]),
    );
    expect(e).toMatchObject({ ok: false, error: expect.stringMatching(/notification/) });
    expect(JSON_DIALECTS.cursor!.knownEvents).not.toContain('notification');
  });

  it('cursor: a new file gets version 1', () => {
    const doc = parse(install(null, req('cursor', [{ on: 'stop', state: 'done' }]))) as { version: number };
    expect(doc.version).toBe(1);
  });

  it('copilot: own file with version 1, bash key and timeoutSec; uninstall deletes it', () => {
    const r: HookEditRequest = {
      agentId: 'copilot',
      reporter,
      hooks: { type: 'json', file: '~/.copilot/hooks/termio.json', dialect: 'copilot', events: [{ on: 'agentStop', state: 'done' }] },
    };
    const text = install(null, r);
    const doc = parse(text) as { version: number; hooks: { agentStop: Array<Record<string, unknown>> } };
    expect(doc.version).toBe(1);
    expect(doc.hooks.agentStop[0]).toMatchObject({ type: 'command', timeoutSec: 5, bash: expect.stringContaining('termio-hook copilot done agentStop') });
    expect(editHookConfig('uninstall', text, r)).toMatchObject({ ok: true, text: null });
  });

  it('quotes paths with spaces for the shell', () => {
    const r = { ...req('claude', [{ on: 'Stop', state: 'done' }]), reporter: { reporterPath: "/Users/o'neil/My Apps/termio-hook" } };
    const doc = parse(install(null, r)) as { hooks: { Stop: Array<{ hooks: Array<{ command: string }> }> } };
    expect(doc.hooks.Stop[0]!.hooks[0]!.command).toBe(`[ -z "$TERMIO_SESSION" ] || '/Users/o'\\''neil/My Apps/termio-hook' claude done Stop`);
  });
});
