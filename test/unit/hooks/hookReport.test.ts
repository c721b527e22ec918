// The hook-report wire format and payload extraction, on payloads shaped like each agent's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  extractHookDetails,
  HOOK_REPORT_VERSION,
  MAX_HOOK_PAYLOAD_CHARS,
  MAX_REPORT_PARENTS,
  parseHookFrame,
  type HookReport,
} from '../../../src/protocol/hookReport';

const report = (payload: string, extra: Partial<HookReport> = {}): HookReport => ({
  v: 2,
  session: 'f3c1d7a2-3b8e-4c55-9d10-7a6b2c1e9f00',
  secret: 's3cr3t',
  agent: 'claude',
  state: 'working',
  event: 'PreToolUse',
  payload,
  truncated: false,
  parents: [
    [41, 'sh'],
    [40, 'claude'],
  ],
  ...extra,
});

describe('frames', () => {
  it('round-trips a report', () => {
    const r = report('{"session_id":"abc"}');
    expect(parseHookFrame(JSON.stringify(r))).toEqual({ ok: true, report: r });
  });

  it('refuses garbage with a reason, never throws', () => {
    const bad = [
      '',
      'null',
      '[]',
      '{"v":2}',
      JSON.stringify({ ...report(''), v: 1 }),
      JSON.stringify({ ...report(''), parents: [[1.5, 'x']] }),
      JSON.stringify({ ...report(''), parents: Array.from({ length: 33 }, () => [2, 'sh']) }),
      '\u0000\u0001',
      JSON.stringify({ ...report(''), state: 'sleeping' }),
      JSON.stringify({ ...report(''), extra: 1 }),
      JSON.stringify({ ...report(''), session: '' }),
    ];
    for (const b of bad) expect(parseHookFrame(b).ok, b).toBe(false);
    expect(parseHookFrame(JSON.stringify({ ...report(''), state: 'sleeping' }))).toMatchObject({ ok: false, error: expect.stringMatching(/^state:/) });
  });

  it('bin/termio-hook repeats the wire constants exactly', () => {
    const src = readFileSync(join(__dirname, '..', '..', '..', 'bin', 'termio-hook'), 'utf8');
    expect(src).toContain(`const HOOK_REPORT_VERSION = ${HOOK_REPORT_VERSION};`);
    expect(src).toContain(`const MAX_REPORT_PARENTS = ${MAX_REPORT_PARENTS};`);
    expect(Function(`return ${/const MAX_HOOK_PAYLOAD_CHARS = ([^;]+);/.exec(src)![1]}`)()).toBe(MAX_HOOK_PAYLOAD_CHARS);
  });
});

describe('payload extraction', () => {
  it('claude SessionStart (as observed from the real CLI)', () => {
    const payload = JSON.stringify({
      session_id: '0b6d5e1c-8f7a-4f0e-9a57-2f1b3c4d5e6f',
      transcript_path: '/home/u/.claude/projects/-home-u-app/0b6d5e1c-8f7a-4f0e-9a57-2f1b3c4d5e6f.jsonl',
      cwd: '/home/u/app',
      hook_event_name: 'SessionStart',
      source: 'startup',
      model: 'claude-opus',
    });
    expect(extractHookDetails(report(payload), { dialect: 'claude', conversationKey: 'session_id' })).toEqual({
      conversationId: '0b6d5e1c-8f7a-4f0e-9a57-2f1b3c4d5e6f',
      transcriptPath: '/home/u/.claude/projects/-home-u-app/0b6d5e1c-8f7a-4f0e-9a57-2f1b3c4d5e6f.jsonl',
      cwd: '/home/u/app',
    });
  });

  it("claude UserPromptSubmit: the prompt's first line becomes a title", () => {
    const payload = JSON.stringify({
      session_id: 's1',
      hook_event_name: 'UserPromptSubmit',
      prompt: '\n\n  Fix the flaky parser test in src/parse.ts — it fails one run in ten and the log shows a race\nmore',
    });
    const d = extractHookDetails(report(payload), { dialect: 'claude' });
    expect(d.promptTitle).toBe('Fix the flaky parser test in src/parse.ts — it fails one run in ten and the log…');
    expect(d.promptTitle!.length).toBe(80);
  });

  it('grok camelCase, copilot camelCase, cursor conversation_id, opencode key path', () => {
    expect(
      extractHookDetails(report(JSON.stringify({ hookEventName: 'PreToolUse', sessionId: 'g1', toolName: 'bash', cwd: '/w' })), { dialect: 'grok' }),
    ).toEqual({ conversationId: 'g1', tool: 'bash', cwd: '/w' });
    expect(extractHookDetails(report(JSON.stringify({ sessionId: 'c1', timestamp: 1, cwd: '/w', toolName: 'edit' })), { dialect: 'copilot' })).toMatchObject({
      conversationId: 'c1',
      tool: 'edit',
    });
    expect(
      extractHookDetails(report(JSON.stringify({ conversation_id: 'k1', generation_id: 'x', hook_event_name: 'stop' })), { dialect: 'cursor' }),
    ).toMatchObject({ conversationId: 'k1' });
    expect(
      extractHookDetails(report(JSON.stringify({ hook_event_name: 'session.idle', session_id: 'ses_1', properties: { sessionID: 'ses_1' } })), {
        dialect: 'opencode',
        conversationKey: 'properties.sessionID',
      }),
    ).toMatchObject({ conversationId: 'ses_1' });
  });

  it('a payload cut at the size cap still yields its leading fields', () => {
    const full = JSON.stringify({
      session_id: 'cut-1',
      transcript_path: '/t.jsonl',
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_response: 'x'.repeat(MAX_HOOK_PAYLOAD_CHARS),
    });
    const d = extractHookDetails(report(full.slice(0, MAX_HOOK_PAYLOAD_CHARS), { truncated: true }), { dialect: 'claude' });
    expect(d).toEqual({ conversationId: 'cut-1', transcriptPath: '/t.jsonl', tool: 'Read' });
  });

  it('non-JSON payloads and wrong types give nothing, not an error', () => {
    expect(extractHookDetails(report('not json'), { dialect: 'claude' })).toEqual({});
    expect(extractHookDetails(report('{"session_id": 42, "prompt": ["x"]}'), { dialect: 'claude' })).toEqual({});
  });

  it("reads the tool and the prompt at the manifest's key paths (hooks.tool, hooks.promptTitle) over the dialect's", () => {
    const payload = JSON.stringify({ prompt: 'not this one', tool_name: 'Edit', step: { tool: 'Bash', ask: 'run the tests\nplease' } });
    expect(extractHookDetails(report(payload), { dialect: 'claude', toolKey: 'step.tool', promptKey: 'step.ask' })).toMatchObject({
      tool: 'Bash',
      promptTitle: 'run the tests',
    });
    expect(extractHookDetails(report(payload), { dialect: 'claude' })).toMatchObject({ tool: 'Edit', promptTitle: 'not this one' });
    // Cline's payload puts each event's data under its own key; its conversation is the root
    // session (what `cline --id` resumes), not the taskId that changes on every launch (3.0.65).
    const cline = JSON.stringify({
      taskId: 'conv_1796642008460_r7v37u9',
      sessionContext: { rootSessionId: '1796641997831_36nz2' },
      hookName: 'tool_call',
      preToolUse: { toolName: 'run_commands' },
    });
    expect(extractHookDetails(report(cline), { dialect: 'cline' })).toMatchObject({ conversationId: '1796641997831_36nz2', tool: 'run_commands' });
  });
});
