// The TOML marked block (re-parsed with smol-toml as the host does) and the OpenCode plugin files
// (OpenCode 2's run for real: its events reach a recorder standing in for the reporter).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { editHookConfig, isOurPlugin, type HookEditRequest } from '../../../src/protocol/hooks';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { waitFor } from '../../helpers/waitFor';

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
    ["a real config with the user's own hooks", userToml],
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

  it("keeps the user's hooks of the same event", () => {
    const doc = parseToml(edit('install', userToml)) as { hooks: { Stop: Array<{ hooks: Array<{ command: string }> }> } };
    expect(doc.hooks.Stop.map((g) => g.hooks[0]!.command)).toEqual(['say codex finished', expect.stringContaining('termio-hook codex done Stop')]);
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

/** A report the recorder got: the reporter's arguments and the payload on its stdin. */
type Call = [string[], { session_id: string; properties: { turn?: string; error?: unknown } }];
/** Sends one OpenCode bus event to the plugin. */
type Send = (type: string, properties: Record<string, unknown>) => Promise<void>;

/**
 * Installs `agentId`'s bundled plugin with a recorder in place of bin/termio-hook (one line per
 * call: its arguments and its stdin), loads it as OpenCode does in a session of tab-1, lets
 * `drive` send it events, and returns the reports once `enough` accepts them.
 */
async function pluginReports(agentId: string, drive: (send: Send) => Promise<void>, enough: (calls: Call[]) => boolean, what: string): Promise<Call[]> {
  const dir = mkdtempSync(join(tmpdir(), `termio-${agentId}-`));
  try {
    const recorder = join(dir, 'termio-hook');
    const log = join(dir, 'calls.log');
    writeFileSync(
      recorder,
      `let b='';process.stdin.on('data',(d)=>b+=d).on('end',()=>require('fs').appendFileSync(${JSON.stringify(log)},JSON.stringify([process.argv.slice(2),JSON.parse(b)])+'\\n'));`,
    );
    const hooks = parseManifest(readFileSync(join(__dirname, '..', '..', '..', 'agents', `${agentId}.json`), 'utf8'), `${agentId}.json`).manifest!.hooks!;
    const r = editHookConfig('install', null, { agentId, reporter: { reporterPath: recorder, nodePath: process.execPath }, hooks });
    if (!r.ok || r.text === null) throw new Error('install failed');
    const plugin = join(dir, 'termio-opencode2.mjs');
    writeFileSync(plugin, r.text);
    const saved = process.env.TERMIO_SESSION;
    process.env.TERMIO_SESSION = 'tab-1';
    try {
      const mod = (await import(plugin)) as { TermioStatus: () => Promise<{ event: (e: unknown) => Promise<void> }> };
      const p = await mod.TermioStatus();
      await drive((type, properties) => p.event({ event: { type, properties } }));
    } finally {
      if (saved === undefined) delete process.env.TERMIO_SESSION;
      else process.env.TERMIO_SESSION = saved;
    }
    return await waitFor(
      () => {
        const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
        const parsed = lines.filter(Boolean).map((l) => JSON.parse(l) as Call);
        return enough(parsed) ? parsed : null;
      },
      { what },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('OpenCode 2 plugin', () => {
  it('runs: session.status reports working when busy and done when idle, permission.asked attention, as agent opencode2', async () => {
    const calls = await pluginReports(
      'opencode2',
      async (send) => {
        await send('session.status', { sessionID: 'ses_1', status: { type: 'busy' } });
        await send('session.status', { sessionID: 'ses_1', status: { type: 'retry' } });
        await send('permission.asked', { sessionID: 'ses_1' });
        await send('session.status', { sessionID: 'ses_1', status: { type: 'idle' } });
      },
      (c) => c.length >= 3,
      'the three reports',
    );
    expect(calls.map(([args]) => args).sort()).toEqual([
      ['opencode2', 'attention', 'permission.asked'],
      ['opencode2', 'done', 'session.status'],
      ['opencode2', 'working', 'session.status'],
    ]);
    expect(calls.every(([, payload]) => payload.session_id === 'ses_1')).toBe(true);
  });
});

describe("Kilo Code's plugin (OpenCode 2's dialect, with a failure event)", () => {
  it("reports session.error as the turn's end and holds back the idle that follows it until the next turn", async () => {
    const calls = await pluginReports(
      'kilo',
      async (send) => {
        const status = (type: string, turn: string) => send('session.status', { sessionID: 'ses_1', status: { type }, turn });
        // Kilo Code 7.7.7's events for a turn the API refuses with a 401, then the next turn.
        await status('busy', 'first');
        const error = { name: 'APIError', data: { message: 'scripted error 401', statusCode: 401, isRetryable: false } };
        await send('session.error', { sessionID: 'ses_1', error });
        await status('idle', 'first');
        await send('session.idle', { sessionID: 'ses_1' });
        await status('busy', 'second');
        await status('idle', 'second');
      },
      (c) => c.some(([args]) => args[1] === 'done') && c.length >= 4,
      'the four reports',
    );
    expect(calls.map(([args, payload]) => [...args, payload.properties.turn ?? '']).sort()).toEqual([
      ['kilo', 'attention', 'session.error', ''],
      ['kilo', 'done', 'session.status', 'second'],
      ['kilo', 'working', 'session.status', 'first'],
      ['kilo', 'working', 'session.status', 'second'],
    ]);
    expect(calls.find(([args]) => args[2] === 'session.error')![1].properties.error).toMatchObject({ data: { statusCode: 401 } });
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
    expect(parsed.hooks[1]).toEqual({
      event: 'PreToolUse',
      matcher: 'Bash',
      command: '[ -z "$TERMIO_SESSION" ] || /usr/bin/node /opt/termio/bin/termio-hook kimi working PreToolUse',
      timeout: 5,
    });
    for (const h of parsed.hooks.slice(1)) expect(Object.keys(h).every((k) => ['event', 'matcher', 'command', 'timeout'].includes(k))).toBe(true);
    const removed = editHookConfig('uninstall', r.text, kimiReq);
    expect(removed).toMatchObject({ ok: true, text: user });
  });

  it('never writes an event Kimi Code does not know (it would refuse its whole config)', () => {
    const bad = { ...kimiReq, hooks: { ...kimiReq.hooks, events: [{ on: 'TaskComplete', state: 'done' as const }] } };
    expect(editHookConfig('install', user, bad)).toEqual({
      ok: false,
      error: expect.stringMatching(/^Kimi Code has no hook event 'TaskComplete' \(known: PreToolUse, /),
    });
  });
});
