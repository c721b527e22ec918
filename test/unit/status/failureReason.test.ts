// The failure classifier on the payloads agents really send when a turn fails: Claude Code's
// StopFailure as measured on 2.1.332 against a loopback API answering 400, 401 and 429 (the three
// payloads below are its stdin, ids shortened), Qwen Code's StopFailure (`error`, `error_details`),
// Copilot's errorOccurred (`error`, `errorContext`, `recoverable`), Cline's TaskError (`error`),
// and OpenCode's and Kilo Code's session.error as their Termio plugin forwards it (`properties.error`);
// then each rule on its own: retry times, reset phrasing, bounds, exits.
import { describe, expect, it } from 'vitest';
import { failureOfReport } from '../../../src/protocol/hookReport';
import { failureFromExit, failureFromPayload, formatClock, lastScreenLine, MAX_FAILURE_REASON_CHARS } from '../../../src/protocol/status/failureReason';

/** 2026-12-07 11:00 local time: reset times below are written as local clock times too. */
const NOW = new Date(2026, 11, 7, 11, 0, 0).getTime();
const at = (h: number, m = 0, dayOffset = 0) => new Date(2026, 11, 7 + dayOffset, h, m, 0).getTime();
const report = (payload: unknown) => ({ payload: JSON.stringify(payload) });

const CLAUDE_BASE = {
  session_id: 'a919c040-4c60-4c0d-8329-b7ed53f382fa',
  transcript_path: '/home/u/.claude/projects/-home-u-proj/a919c040-4c60-4c0d-8329-b7ed53f382fa.jsonl',
  cwd: '/home/u/proj',
  prompt_id: '50e5a37c-a379-4a01-93d7-4188dc8911c1',
  effort: { level: 'medium' },
  hook_event_name: 'StopFailure',
};

describe('Claude Code StopFailure (measured payloads)', () => {
  it('401: an auth failure, log in again', () => {
    const p = { ...CLAUDE_BASE, error: 'authentication_failed', last_assistant_message: 'Invalid API key · Fix external API key' };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'auth', reason: 'API error: log in again' });
  });

  it('400: an API error quoting the API body carried in error_details', () => {
    const p = {
      ...CLAUDE_BASE,
      error: 'invalid_request',
      error_details: '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 300000 tokens > 200000 maximum"}}',
      last_assistant_message: 'Prompt is too long · the request is ~300000 tokens (limit 200000) but this conversation is only ~2500 tokens',
    };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'api', reason: 'API error 400: prompt is too long: 300000 tokens > 200000 maximum' });
  });

  it('429: a usage limit, the status read from the line the TUI showed', () => {
    const p = {
      ...CLAUDE_BASE,
      error: 'rate_limit',
      last_assistant_message: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.",
    };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit' });
  });

  it('a subscription usage limit with its reset time in words', () => {
    const p = { ...CLAUDE_BASE, error: 'rate_limit', last_assistant_message: "You've hit your limit · resets 2pm (Europe/Berlin)" };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit, resets 14:00', resetsAt: at(14) });
  });

  it('the older "usage limit reached|<epoch seconds>" form', () => {
    const reset = at(16, 30);
    const p = { ...CLAUDE_BASE, error: 'rate_limit', last_assistant_message: `Claude AI usage limit reached|${Math.floor(reset / 1000)}` };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit, resets 16:30', resetsAt: reset });
  });
});

describe('Qwen Code StopFailure', () => {
  it('a rate limit whose details say when to try again', () => {
    const p = {
      session_id: 's1',
      hook_event_name: 'StopFailure',
      error: 'rate_limit',
      error_details: '429 Too Many Requests: Rate limit exceeded, please try again in 30 minutes',
    };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit, resets 11:30', resetsAt: at(11, 30) });
  });

  it('an OpenAI-style 401 body in the details', () => {
    const p = {
      session_id: 's1',
      hook_event_name: 'StopFailure',
      error: 'authentication_failed',
      error_details: '401 {"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
    };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'auth', reason: 'API error 401: log in again' });
  });
});

describe("Copilot's errorOccurred", () => {
  it('a model call refused with 400: the message of the error object', () => {
    const p = {
      timestamp: 1765100000000,
      cwd: '/home/u/proj',
      error: { message: '400 model "gpt-x" is not supported', name: 'Error', stack: 'Error: 400 model…\n    at call (x.js:1:1)' },
      errorContext: 'model_call',
      recoverable: true,
    };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'api', reason: 'API error 400: model "gpt-x" is not supported' });
  });

  it('a quota error given as text', () => {
    const p = { timestamp: 1, cwd: '/p', error: 'You have exceeded your monthly quota', errorContext: 'model_call', recoverable: false };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit' });
  });
});

describe("OpenCode's and Kilo Code's session.error (measured on opencode-ai 1.18.33, @kilocode/cli 7.7.7)", () => {
  const sessionError = (statusCode: number, message: string, body: string) => ({
    hook_event_name: 'session.error',
    session_id: 'ses_daf8dc914ffeW6lp2n5D0PzuCE',
    properties: {
      sessionID: 'ses_daf8dc914ffeW6lp2n5D0PzuCE',
      error: {
        name: 'APIError',
        data: {
          message,
          statusCode,
          isRetryable: false,
          responseHeaders: { 'content-type': 'application/json' },
          responseBody: body,
          metadata: { url: 'http://127.0.0.1:1/v1/messages' },
        },
      },
    },
  });

  it('a 400 (OpenCode, Anthropic API): its status and message', () => {
    const p = sessionError(400, 'refused on purpose', '{"type":"error","error":{"type":"invalid_request_error","message":"refused on purpose"}}');
    expect(failureOfReport(report(p), 'properties.error', NOW)).toEqual({ kind: 'api', reason: 'API error 400: refused on purpose' });
  });

  it('a 401 (Kilo Code, Chat Completions): log in again', () => {
    const p = sessionError(401, 'refused on purpose', '{"error":{"message":"refused on purpose","type":"invalid_request_error"}}');
    expect(failureOfReport(report(p), 'properties.error', NOW)).toEqual({ kind: 'auth', reason: 'API error 401: log in again' });
  });
});

describe("Cline's TaskError", () => {
  it('an error with a status and a retry-after', () => {
    const p = { hookName: 'TaskError', taskId: 'conv_1_x', error: { message: 'Too Many Requests', status: 429, headers: { 'retry-after': '120' } } };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit, resets 11:02', resetsAt: NOW + 120_000 });
  });

  it('an error nobody classified: its first line', () => {
    const p = { hookName: 'TaskError', taskId: 'conv_1_x', error: 'Connection closed before the answer was complete\n  at stream (cli.js:3:9)' };
    expect(failureOfReport(report(p), 'error', NOW)).toEqual({ kind: 'api', reason: 'stopped: Connection closed before the answer was complete' });
  });
});

describe('failure lines read off the screen (failureScreen)', () => {
  it("reads Codex's bare error body and Gemini's bracketed one", () => {
    expect(failureFromPayload('■ {"error":{"message":"refused on purpose","type":"invalid_request_error","param":null,"code":null}}', NOW)).toEqual({
      kind: 'api',
      reason: 'API error: refused on purpose',
    });
    expect(failureFromPayload('✕ [API Error: {"error":{"code":400,"message":"refused on purpose","status":"INVALID_ARGUMENT","details":[]}}]', NOW)).toEqual({
      kind: 'api',
      reason: 'API error 400: refused on purpose',
    });
  });

  it("reads Auggie's and Continue's lines (the part their failureScreen pattern captures)", () => {
    expect(failureFromPayload('"invalidArgument: HTTP error: 400 Bad Request"', NOW)).toEqual({
      kind: 'api',
      reason: 'API error 400: "invalidArgument: HTTP error: 400 Bad Request"',
    });
    expect(failureFromPayload('401 refused on purpose', NOW)).toEqual({ kind: 'auth', reason: 'API error 401: log in again' });
  });
});

describe('the classifier, rule by rule', () => {
  it('403 is an auth failure too', () => {
    expect(failureFromPayload({ status: 403, message: 'Forbidden' }, NOW).kind).toBe('auth');
  });

  it('a 5xx is an API error with its status and message', () => {
    expect(failureFromPayload('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', NOW)).toEqual({
      kind: 'api',
      reason: 'API error 529: Overloaded',
    });
  });

  it('a reset timestamp field, in seconds, in ms or as ISO text', () => {
    for (const reset of [Math.floor(at(15) / 1000), at(15), new Date(at(15)).toISOString()])
      expect(failureFromPayload({ status: 429, message: 'rate limited', resets_at: reset }, NOW)).toMatchObject({ resetsAt: at(15) });
  });

  it('"resets at 9:15" that has passed today is tomorrow', () => {
    const f = failureFromPayload('usage limit reached, resets at 9:15', NOW);
    expect(f).toEqual({ kind: 'usage', reason: `stopped: usage limit, resets ${formatClock(at(9, 15, 1), NOW)}`, resetsAt: at(9, 15, 1) });
    expect(f.reason).toMatch(/resets \w{3} 09:15$/);
  });

  it('"try again in 2 hours", "retry after 45s"', () => {
    expect(failureFromPayload('Rate limit reached. Try again in 2 hours.', NOW).resetsAt).toBe(NOW + 7_200_000);
    expect(failureFromPayload('429: retry after 45s', NOW).resetsAt).toBe(NOW + 45_000);
  });

  it('a reset already past is not shown', () => {
    expect(failureFromPayload({ status: 429, message: 'slow down', resets_at: NOW - 1000 }, NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit' });
  });

  it('a bare number is not taken for a status, a 3-digit count in prose neither', () => {
    expect(failureFromPayload('wrote 404 files then stopped', NOW)).toEqual({ kind: 'api', reason: 'stopped: wrote 404 files then stopped' });
  });

  it('nothing to say still says stopped', () => {
    expect(failureFromPayload(undefined, NOW)).toEqual({ kind: 'api', reason: 'stopped: an error the agent did not describe' });
  });

  it('a long message is clipped to one short line', () => {
    const f = failureFromPayload({ status: 400, message: `${'x'.repeat(500)}\nsecond line` }, NOW);
    expect(f.reason.length).toBeLessThanOrEqual(MAX_FAILURE_REASON_CHARS);
    expect(f.reason).toMatch(/^API error 400: x+…$/);
  });

  it('a deeply nested or huge payload is read within bounds', () => {
    let deep: unknown = { message: 'bottom', status: 401 };
    for (let i = 0; i < 10_000; i++) deep = { error: deep };
    expect(() => failureFromPayload(deep, NOW)).not.toThrow();
    expect(failureFromPayload({ message: 'x'.repeat(5_000_000) }, NOW).reason.length).toBeLessThanOrEqual(MAX_FAILURE_REASON_CHARS);
  });

  it('a payload cut short (not JSON) is read as text', () => {
    const cut = '{"session_id":"s","error":"rate_limit","last_assistant_message":"API Error: Request rejected (429) · This req';
    expect(failureOfReport({ payload: cut }, 'error', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit' });
  });

  it('a nested key path reads the fields beside it', () => {
    const p = { data: { failure: 'rate_limit', failure_details: 'try again in 10 minutes' } };
    expect(failureOfReport(report(p), 'data.failure', NOW)).toEqual({ kind: 'usage', reason: 'stopped: usage limit, resets 11:10', resetsAt: at(11, 10) });
  });
});

describe('exits', () => {
  it('a non-zero code with the last line on screen', () => {
    expect(failureFromExit(1, undefined, 'Unable to connect to Anthropic services')).toEqual({
      kind: 'exit',
      reason: 'exited with code 1: Unable to connect to Anthropic services',
    });
  });

  it('a signal, and nothing on screen', () => {
    expect(failureFromExit(0, 9, undefined)).toEqual({ kind: 'exit', reason: 'ended by signal 9' });
    expect(failureFromExit(2, undefined, '   ')).toEqual({ kind: 'exit', reason: 'exited with code 2' });
  });

  it('the last non-empty screen line', () => {
    expect(lastScreenLine(['$ claude', 'Error: boom  ', '', '   '])).toBe('Error: boom');
    expect(lastScreenLine(['', ''])).toBeUndefined();
  });
});
