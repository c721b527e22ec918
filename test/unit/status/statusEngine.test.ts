// The status state machine: channel precedence, done vs idle, exit, hook health, reasons.
import { describe, expect, it } from 'vitest';
import { StatusEngine, type StatusEngineConfig, type StatusInput } from '../../../src/protocol/status';
import { engineSnapshotProblem } from '../../../src/protocol/status/engineSnapshot';

const claudeLike: StatusEngineConfig = {
  hooksDeclared: true,
  hooksReportAtStart: true,
  titleStatus: { idle: ['^✳ '], working: ['^[^\\sA-Za-z0-9✳] '] },
};
const codexLike: StatusEngineConfig = {
  hooksDeclared: true,
  titleStatus: { attention: ['\\[ [!.] \\] Action Required'], working: ['^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]'] },
  status: { attention: ['Allow command\\?'] },
};
const screenOnly: StatusEngineConfig = {
  hooksDeclared: false,
  status: { working: ['esc to interrupt'], attention: ['Do you want to proceed\\?'] },
};

/** Runs inputs at t = 1000, 1001, … and returns the state after each. */
/** StatusInput without its time (distributed over the union, so each kind keeps its fields). */
type TimelessInput = StatusInput extends infer T ? (T extends unknown ? Omit<T, 'at'> & { at?: number } : never) : never;

function run(config: StatusEngineConfig, inputs: TimelessInput[]): { states: string[]; engine: StatusEngine } {
  const engine = new StatusEngine(config, 0);
  let t = 1000;
  const states = inputs.map((i) => {
    engine.apply({ ...i, at: i.at ?? t++ } as StatusInput);
    return engine.status.state;
  });
  return { states, engine };
}

const hook = (state: 'working' | 'attention' | 'done' | 'idle', event: string) => ({ kind: 'hook' as const, state, event });
const title = (t: string) => ({ kind: 'title' as const, title: t });
const screen = (...lines: string[]) => ({ kind: 'screen' as const, lines });
const focus = (focused: boolean) => ({ kind: 'focus' as const, focused });

describe('hooks are the source of truth', () => {
  it('follows hook events; done while away, idle once the user looks', () => {
    const { states, engine } = run(claudeLike, [
      hook('idle', 'SessionStart'),
      hook('working', 'UserPromptSubmit'),
      hook('working', 'PreToolUse'),
      hook('done', 'Stop'),
      focus(true),
    ]);
    expect(states).toEqual(['idle', 'working', 'working', 'done', 'idle']);
    expect(engine.status.why).toMatchObject({ channel: 'focus' });
  });

  it('finishing while the user is looking is idle at once', () => {
    const { states, engine } = run(claudeLike, [focus(true), hook('working', 'UserPromptSubmit'), hook('done', 'Stop')]);
    expect(states).toEqual(['idle', 'working', 'idle']);
    expect(engine.status.why).toMatchObject({ channel: 'hooks', event: 'Stop' });
  });

  it('a title flip corrects a missed hook event at once', () => {
    // The Stop hook never arrives; the title goes from spinner to ✳.
    const { states, engine } = run(claudeLike, [
      hook('working', 'UserPromptSubmit'),
      title('⠂ Fixing tests'),
      title('⠐ Fixing tests'),
      title('✳ Fixing tests'),
    ]);
    expect(states).toEqual(['working', 'working', 'working', 'done']);
    expect(engine.status.why).toMatchObject({ channel: 'titleStatus', rule: '^✳ ' });
  });

  it('a hook that arrives just after the title showed the same state becomes the reason', () => {
    // The title's ✳ was read before the StopFailure report (the pty and the hook socket race).
    const { states, engine } = run(claudeLike, [hook('working', 'UserPromptSubmit'), title('⠂ Working'), title('✳ Claude Code'), hook('done', 'StopFailure')]);
    expect(states).toEqual(['working', 'working', 'done', 'done']);
    expect(engine.status.why).toMatchObject({ channel: 'hooks', event: 'StopFailure' });
  });

  it('a title that has not flipped never overrides a newer hook', () => {
    // Spinner frames keep arriving after Stop: same classification, no flip.
    const { states } = run(claudeLike, [title('⠂ x'), hook('working', 'PreToolUse'), hook('done', 'Stop'), title('⠐ x'), title('⠄ x')]);
    expect(states).toEqual(['working', 'working', 'done', 'done', 'done']);
  });

  it("a quiet title cannot hide a hook's attention, a working title ends it", () => {
    const { states } = run(claudeLike, [hook('working', 'PreToolUse'), title('⠂ x'), hook('attention', 'PermissionRequest'), title('✳ x'), title('⠐ x')]);
    expect(states).toEqual(['working', 'working', 'attention', 'attention', 'working']);
  });

  it('the first idle title becomes the reason for the idle state the session started in', () => {
    const { states, engine } = run(claudeLike, [title('✳ Claude Code')]);
    expect(states).toEqual(['idle']);
    expect(engine.status.why).toMatchObject({ channel: 'titleStatus' });
  });

  it('a spinner title read after the permission hook (written before it) keeps the attention', () => {
    // Claude: ✳ idle, prompt, tool, the spinner written, then PermissionRequest — but the pty's
    // bytes with the spinner reach the app after the hook's report.
    const { states } = run(claudeLike, [
      title('✳ x'),
      hook('working', 'UserPromptSubmit'),
      hook('working', 'PreToolUse'),
      hook('attention', 'PermissionRequest'),
      title('⠂ Working'),
      hook('working', 'PostToolUse'),
    ]);
    expect(states).toEqual(['idle', 'working', 'working', 'attention', 'attention', 'working']);
  });

  it("attention in the title (codex) beats the hook's working", () => {
    const { states } = run(codexLike, [
      hook('working', 'PreToolUse'),
      title('[ ! ] Action Required'),
      title('[ . ] Action Required'),
      hook('working', 'PostToolUse'),
    ]);
    expect(states).toEqual(['working', 'attention', 'attention', 'working']);
  });

  it('screen rules are ignored while hooks report', () => {
    const { states } = run(codexLike, [hook('working', 'PreToolUse'), screen('Allow command?'), hook('done', 'Stop')]);
    expect(states).toEqual(['working', 'working', 'done']);
  });
});

describe('exit', () => {
  it('an exited process is never working, and ignores late signals', () => {
    const { states, engine } = run(claudeLike, [hook('working', 'PreToolUse'), { kind: 'exit', exitCode: 0 }, hook('working', 'PostToolUse'), title('⠂ x')]);
    expect(states).toEqual(['working', 'done', 'done', 'done']);
    expect(engine.status.why).toMatchObject({ channel: 'exit', event: 'exit 0' });
  });

  it('exits straight to idle when the user is looking', () => {
    expect(run(screenOnly, [focus(true), screen('esc to interrupt'), { kind: 'exit', exitCode: 0 }]).states).toEqual(['idle', 'working', 'idle']);
  });
});

describe('failures are attention with their reason', () => {
  const usage = { kind: 'usage' as const, reason: 'stopped: usage limit, resets 14:00', resetsAt: 50_000 };

  it("a failure event's classified failure becomes the reason, and the next turn clears it", () => {
    const { states, engine } = run(claudeLike, [hook('working', 'UserPromptSubmit'), { ...hook('attention', 'StopFailure'), failure: usage }]);
    expect(states).toEqual(['working', 'attention']);
    expect(engine.status.why).toEqual({ channel: 'hooks', event: 'StopFailure', at: 1001, failure: usage });
    engine.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 2000 });
    expect(engine.status.state).toBe('working');
    expect(engine.status.why.failure).toBeUndefined();
  });

  it('stays attention when the user looks (it is not done)', () => {
    const { states } = run(claudeLike, [hook('working', 'UserPromptSubmit'), { ...hook('attention', 'StopFailure'), failure: usage }, focus(true)]);
    expect(states).toEqual(['working', 'attention', 'attention']);
  });

  it('a failure while already attention is news: the reason changes', () => {
    const { engine } = run(claudeLike, [hook('attention', 'PermissionRequest')]);
    expect(engine.apply({ kind: 'hook', state: 'attention', event: 'StopFailure', failure: usage, at: 3000 })).toBe(true);
    expect(engine.status).toMatchObject({ state: 'attention', why: { event: 'StopFailure', failure: usage } });
  });

  it('a non-zero exit or a signal is attention naming the code and the last screen line; exit 0 is done', () => {
    const failed = run(claudeLike, [hook('working', 'UserPromptSubmit'), { kind: 'exit', exitCode: 1, lastLine: 'Unable to connect to Anthropic services' }]);
    expect(failed.states).toEqual(['working', 'attention']);
    expect(failed.engine.status.why).toMatchObject({
      channel: 'exit',
      event: 'exit 1',
      failure: { kind: 'exit', reason: 'exited with code 1: Unable to connect to Anthropic services' },
    });
    expect(run(screenOnly, [{ kind: 'exit', exitCode: 0, signal: 9 }]).engine.status.why.failure).toEqual({ kind: 'exit', reason: 'ended by signal 9' });
    expect(run(claudeLike, [hook('working', 'UserPromptSubmit'), { kind: 'exit', exitCode: 0 }]).states).toEqual(['working', 'done']);
  });

  it("a login shell's exit code is its last command's: never a failure", () => {
    const { states, engine } = run({ hooksDeclared: false, shellExit: true }, [{ kind: 'exit', exitCode: 1, lastLine: '$ false' }]);
    expect(states).toEqual(['done']);
    expect(engine.status.why.failure).toBeUndefined();
  });

  // Continue's CLI shape: no hooks, its failed turn printed right above the input box.
  const screenFailure: StatusEngineConfig = {
    hooksDeclared: false,
    status: { working: ['esc to interrupt'], attention: ['Would you like to continue\\?'] },
    failureScreen: ['^Error: ([45]\\d\\d\\b.*)'],
  };

  it("with no hooks, a failure line is attention, its pattern's first capture group classified into the reason as a hook's payload is", () => {
    const { states, engine } = run(screenFailure, [
      screen('● Try again', '⠋ Thinking… (esc to interrupt)', '╭──╮'),
      screen('● Try again', 'Error: 401 refused on purpose', '╭──╮'),
    ]);
    expect(states).toEqual(['working', 'attention']);
    expect(engine.status.why).toEqual({
      channel: 'status',
      rule: '^Error: ([45]\\d\\d\\b.*)',
      event: 'failure on screen',
      at: 1001,
      failure: { kind: 'auth', reason: 'API error 401: log in again' },
    });
    // The next turn's work (the screen turning working) ends it: working, the reason gone.
    engine.apply({ kind: 'screen', lines: ['Error: 401 refused on purpose', '● Once more', '⠋ (esc to interrupt)', '╭──╮'], at: 2000 });
    expect(engine.status).toMatchObject({ state: 'working', why: { channel: 'status', rule: 'esc to interrupt' } });
    expect(engine.status.why.failure).toBeUndefined();
  });

  it('a screen failure beats a question, and another error on screen is a new reason', () => {
    const { engine } = run(screenFailure, [screen('⠋ (esc to interrupt)'), screen('Would you like to continue?', 'Error: 400 prompt is too long', '╭──╮')]);
    expect(engine.status).toMatchObject({ state: 'attention', why: { failure: { kind: 'api', reason: 'API error 400: prompt is too long' } } });
    expect(engine.apply({ kind: 'screen', lines: ['Error: 429 rate limit exceeded', '╭──╮'], at: 3000 })).toBe(true);
    expect(engine.status.why.failure).toMatchObject({ kind: 'usage' });
    // A pattern without a group gives its whole line; the user sending a line begins a turn.
    const whole = run({ hooksDeclared: false, failureScreen: ['API Error: 5\\d\\d'] }, [{ kind: 'input' }, screen('  API Error: 503')]);
    expect(whole.engine.status.why.failure).toMatchObject({ kind: 'api', reason: 'API error 503' });
  });

  it('survives a snapshot, and a snapshot with a malformed failure is refused by name', () => {
    const { engine } = run(claudeLike, [hook('working', 'UserPromptSubmit'), { ...hook('attention', 'StopFailure'), failure: usage }]);
    const snap = JSON.parse(JSON.stringify(engine.snapshot())) as Record<string, unknown>;
    expect(engineSnapshotProblem(snap)).toBeNull();
    expect(StatusEngine.restore(claudeLike, snap as never).status.why.failure).toEqual(usage);
    const current = snap.current as { why: object };
    const bad = { ...snap, current: { ...current, why: { ...current.why, failure: { kind: 'gremlins', reason: 'x' } } } };
    expect(engineSnapshotProblem(bad)).toBe('current.why.failure is not a failure');
  });
});

describe('failures the screen shows (failureScreen) beside hooks', () => {
  // The lines Codex 0.171.0 and Gemini CLI 0.61.0 print when the API refuses a turn (400), wrapped
  // at the terminal's width as they were on a 120-column screen.
  const CODEX_ERROR = ['■ {"error":{"message":"refused on purpose by the release', 'matrix","type":"invalid_request_error","param":null,"code":null}}'];
  const GEMINI_ERROR = [
    '✕ [API Error: {"error":{"code":400,"message":"refused on purpose by the release',
    '  matrix","status":"INVALID_ARGUMENT","details":[]}}]',
  ];
  const codexFailing: StatusEngineConfig = { ...codexLike, failureScreen: ['^■ \\{"error"'] };
  const geminiFailing: StatusEngineConfig = { hooksDeclared: true, failureScreen: ['^✕ \\[API Error'] };

  it('a failure line after the turn began is attention with its message, with no hook after it (Codex)', () => {
    const { states, engine } = run(codexFailing, [hook('working', 'UserPromptSubmit'), screen('› Try again', ...CODEX_ERROR, '› Ask Codex to do anything')]);
    expect(states).toEqual(['working', 'attention']);
    expect(engine.status.why).toMatchObject({
      channel: 'status',
      event: 'failure on screen',
      failure: { kind: 'api', reason: 'API error: refused on purpose by the release matrix' },
    });
  });

  it('the hook that ends the turn names the end and keeps the reason, read before or after it (Gemini)', () => {
    for (const order of ['screen first', 'hook first']) {
      const end = hook('done', 'AfterAgent');
      const shown = screen('> Try again', ...GEMINI_ERROR, 'ℹ This request failed.');
      const { states, engine } = run(geminiFailing, [hook('working', 'BeforeAgent'), ...(order === 'screen first' ? [shown, end] : [end, shown])]);
      expect(states.at(-1), order).toBe('attention');
      expect(engine.status.why, order).toMatchObject({
        channel: 'hooks',
        event: 'AfterAgent',
        failure: { kind: 'api', reason: 'API error 400: refused on purpose by the release matrix' },
      });
    }
  });

  it('a failure line already on screen when the turn began is old news; the next turn clears a failure', () => {
    const old = screen(...CODEX_ERROR, '› Ask Codex to do anything');
    const { states, engine } = run(codexFailing, [old, hook('working', 'UserPromptSubmit'), old, hook('done', 'Stop')]);
    expect(states).toEqual(['idle', 'working', 'working', 'done']);
    // Before any turn (a resumed conversation's screen) a failure line is not the session's news.
    expect(run(codexFailing, [old]).states).toEqual(['idle']);
    // The same message again, below the next prompt, is a new failure.
    engine.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 3000 });
    engine.apply({ kind: 'screen', lines: [...CODEX_ERROR, '› Try again', ...CODEX_ERROR], at: 3001 });
    expect(engine.status.state).toBe('attention');
    engine.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 3002 });
    expect(engine.status).toMatchObject({ state: 'working', why: { event: 'UserPromptSubmit' } });
    expect(engine.status.why.failure).toBeUndefined();
  });

  it("the user sending a line begins a turn: a failure after it is caught with no hook since, and the last turn's end is not named (Auggie)", () => {
    // Auggie's hooks: no prompt hook, and a turn the API refused fires none at all.
    const auggieFailing: StatusEngineConfig = { hooksDeclared: true, failureScreen: ['API Error: (.*)'] };
    const refused = screen('› Try again', 'API Error: "invalidArgument: HTTP error: 400 Bad Request"');
    const { states, engine } = run(auggieFailing, [hook('working', 'PreToolUse'), hook('done', 'Stop'), { kind: 'input' }, refused]);
    expect(states).toEqual(['working', 'done', 'done', 'attention']);
    expect(engine.status.why).toMatchObject({ channel: 'status', event: 'failure on screen', failure: { kind: 'api' } });
    expect(engine.status.why.failure?.reason).toMatch(/^API error 400: .*HTTP error: 400 Bad Request/);
    // A first turn that fails (no working hook ever came) is caught through the line sent alone.
    expect(run(auggieFailing, [hook('idle', 'SessionStart'), refused]).states.at(-1)).toBe('idle');
    expect(run(auggieFailing, [hook('idle', 'SessionStart'), { kind: 'input' }, refused]).states.at(-1)).toBe('attention');
    // The next line sent ends it; the screen still shows it, and it is the last turn's.
    engine.apply({ kind: 'input', at: 5000 });
    engine.apply({ kind: 'screen', lines: ['› Try again', 'API Error: "invalidArgument: HTTP error: 400 Bad Request"', '› Once more'], at: 5001 });
    expect(engine.status).toMatchObject({ state: 'done', why: { event: 'Stop' } });
    expect(engine.status.why.failure).toBeUndefined();
  });

  it('where a prompt hook reports, a line sent begins no turn: a bare Enter leaves the failure (Codex)', () => {
    const { engine } = run({ ...codexFailing, hooksReportOnPrompt: true }, [hook('working', 'UserPromptSubmit'), screen('› Try again', ...CODEX_ERROR)]);
    engine.apply({ kind: 'input', at: 5000 });
    expect(engine.status).toMatchObject({ state: 'attention', why: { event: 'failure on screen' } });
  });

  it('before any turn a failure line is old news for an agent without hooks too; a later failure line replaces the reason', () => {
    const noHooks: StatusEngineConfig = { hooksDeclared: false, failureScreen: ['^Error: ([45]\\d\\d\\b.*)'] };
    expect(run(noHooks, [screen('Error: 401 from the resumed conversation')]).engine.status.why.failure).toBeUndefined();
    const { engine } = run(noHooks, [{ kind: 'input' }, screen('Error: 400 prompt is too long')]);
    expect(engine.status.why.failure?.reason).toBe('API error 400: prompt is too long');
    expect(engine.apply({ kind: 'screen', lines: ['Error: 400 prompt is too long', 'Error: 401 expired'], at: 4000 })).toBe(true);
    expect(engine.status.why.failure?.reason).toBe('API error 401: log in again');
  });

  it('survives a snapshot; a bad pattern is named', () => {
    const { engine } = run(codexFailing, [hook('working', 'UserPromptSubmit'), screen(...CODEX_ERROR)]);
    const snap = JSON.parse(JSON.stringify(engine.snapshot())) as Record<string, unknown>;
    expect(engineSnapshotProblem(snap)).toBeNull();
    expect(StatusEngine.restore(codexFailing, snap as never).status.why.failure?.reason).toBe('API error: refused on purpose by the release matrix');
    expect(engineSnapshotProblem({ ...snap, failureMark: { count: -1, last: '' } })).toBe('failureMark is not a mark');
    expect(new StatusEngine({ hooksDeclared: true, failureScreen: ['(unclosed'] }, 0).ruleErrors[0]).toMatch(/^failureScreen: bad regex "\(unclosed"/);
  });
});

describe('screen rules (no hooks)', () => {
  it('attention beats working when both match', () => {
    const { states, engine } = run(screenOnly, [screen('⠋ Thinking… (esc to interrupt)'), screen('Do you want to proceed?', 'esc to interrupt'), screen('> ')]);
    expect(states).toEqual(['working', 'attention', 'done']);
    expect(engine.status.why).toMatchObject({ channel: 'status', event: 'no rule matches' });
  });

  it('title and screen together: the more urgent claim wins', () => {
    const cfg: StatusEngineConfig = { hooksDeclared: false, titleStatus: { idle: ['^◇'], working: ['^✦'] }, status: { attention: ['Apply this change\\?'] } };
    expect(run(cfg, [title('◇  Ready (app)'), title('✦  Working… (app)'), screen('Apply this change?'), screen(''), title('◇  Ready (app)')]).states).toEqual([
      'idle',
      'working',
      'attention',
      'working',
      'done',
    ]);
  });
});

describe('hooks not reporting', () => {
  it('declared hooks silent after start: health note, and the screen counts again', () => {
    const e = new StatusEngine(codexLike, 0);
    e.apply({ kind: 'title', title: '⠋ codex', at: 100 });
    expect(e.status.health).toEqual([]);
    expect(e.nextDeadline()).toBe(100 + 5_000);
    e.apply({ kind: 'screen', lines: ['Allow command?'], at: 200 });
    expect(e.status.state).toBe('working'); // screen ignored: hooks are declared and may still report
    expect(e.apply({ kind: 'tick', at: 5_100 })).toBe(true);
    expect(e.status.health.map((h) => h.code)).toEqual(['hooksNotReporting']);
    e.apply({ kind: 'screen', lines: ['Allow command?', ''], at: 5_200 });
    expect(e.status.state).toBe('attention');
    // A hook finally reports: the note goes, hooks rule again.
    e.apply({ kind: 'hook', state: 'working', event: 'PostToolUse', at: 6_000 });
    expect(e.status).toMatchObject({ state: 'working', health: [] });
  });

  it('agents with a start hook are expected to report within the start grace', () => {
    const e = new StatusEngine(claudeLike, 0);
    expect(e.nextDeadline()).toBe(15_000);
    e.apply({ kind: 'tick', at: 14_999 });
    expect(e.status.health).toEqual([]);
    e.apply({ kind: 'tick', at: 15_000 });
    expect(e.status.health).toHaveLength(1);
  });

  it('notices hooks that stop reporting mid-session: new work with no prompt hook after it', () => {
    const cfg: StatusEngineConfig = { ...claudeLike, hooksReportOnPrompt: true, status: { attention: ['Do you want to proceed\\?'] } };
    const e = new StatusEngine(cfg, 0);
    e.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 100 });
    e.apply({ kind: 'title', title: '✶ Working', at: 110 });
    e.apply({ kind: 'hook', state: 'done', event: 'Stop', at: 5_000 });
    e.apply({ kind: 'title', title: '✳ Claude Code', at: 5_010 });
    expect(e.nextDeadline()).toBeNull(); // quiet: nothing is expected
    // Next turn: the title shows work, but no hook follows (the hooks were removed meanwhile).
    e.apply({ kind: 'title', title: '✶ Thinking', at: 20_000 });
    expect(e.nextDeadline()).toBe(25_000);
    e.apply({ kind: 'tick', at: 24_999 });
    expect(e.status.health).toEqual([]);
    expect(e.apply({ kind: 'tick', at: 25_000 })).toBe(true);
    expect(e.status.health.map((h) => h.code)).toEqual(['hooksStoppedReporting']);
    // Status now follows the title and the screen.
    e.apply({ kind: 'screen', lines: ['Do you want to proceed?'], at: 26_000 });
    expect(e.status.state).toBe('attention');
    // A hook reports again: the note goes and hooks rule.
    e.apply({ kind: 'hook', state: 'working', event: 'PostToolUse', at: 27_000 });
    expect(e.status).toMatchObject({ state: 'working', health: [] });
  });

  it('does not call hooks stopped when the prompt hook lands just after the title (they race)', () => {
    const e = new StatusEngine({ ...claudeLike, hooksReportOnPrompt: true }, 0);
    e.apply({ kind: 'hook', state: 'done', event: 'Stop', at: 100 });
    e.apply({ kind: 'title', title: '✶ Working', at: 1_000 });
    e.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 1_030 });
    expect(e.nextDeadline()).toBeNull();
    e.apply({ kind: 'tick', at: 60_000 });
    expect(e.status.health).toEqual([]);
  });

  it('lets a long turn run without more hooks: the work on the title belongs to the prompt hook before it', () => {
    const e = new StatusEngine({ ...claudeLike, hooksReportOnPrompt: true }, 0);
    e.apply({ kind: 'hook', state: 'working', event: 'UserPromptSubmit', at: 100 });
    e.apply({ kind: 'title', title: '✶ Thinking', at: 110 });
    expect(e.nextDeadline()).toBeNull();
    e.apply({ kind: 'tick', at: 120_000 });
    expect(e.status).toMatchObject({ state: 'working', health: [] });
  });

  it('expects no hook after new work when the agent has no prompt hook (tool hooks only)', () => {
    const e = new StatusEngine({ ...codexLike, hooksReportOnPrompt: false }, 0);
    e.apply({ kind: 'hook', state: 'working', event: 'PreToolUse', at: 100 });
    e.apply({ kind: 'title', title: 'codex — app', at: 200 });
    e.apply({ kind: 'title', title: '⠋ codex', at: 10_000 });
    e.apply({ kind: 'tick', at: 60_000 });
    expect(e.status.health).toEqual([]);
  });

  it('never cries wolf for an agent idle since launch whose hooks fire on prompts only', () => {
    const e = new StatusEngine({ ...codexLike }, 0);
    e.apply({ kind: 'title', title: 'codex — app', at: 10 });
    expect(e.nextDeadline()).toBeNull();
    e.apply({ kind: 'tick', at: 3_600_000 });
    expect(e.status.health).toEqual([]);
  });
});

describe('rules', () => {
  it('bad regexes and unknown states are reported, not thrown', () => {
    const e = new StatusEngine({ hooksDeclared: false, titleStatus: { working: ['(unclosed'], sleeping: ['x'] } }, 0);
    expect(e.ruleErrors).toEqual([expect.stringMatching(/bad regex "\(unclosed"/), expect.stringMatching(/unknown state 'sleeping'/)]);
  });
});

describe('a snapshot carries the engine on (a session adopted by a new host)', () => {
  it('restores the state, its reason and each channel claim, and goes on as the original would', () => {
    // A permission hook while the title still shows the spinner: only the hook's claim keeps it attention.
    const { engine } = run(claudeLike, [
      title('✳ Claude Code'),
      hook('working', 'UserPromptSubmit'),
      title('⠂ Working'),
      hook('attention', 'PermissionRequest'),
    ]);
    expect(engine.status.state).toBe('attention');
    const restored = StatusEngine.restore(claudeLike, JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.status).toEqual(engine.status);
    expect(engineSnapshotProblem(JSON.parse(JSON.stringify(engine.snapshot())))).toBeNull();
    // The same title again is no news for either; a hook's Stop ends the turn for both.
    for (const input of [title('⠂ Working'), hook('done', 'Stop')] as TimelessInput[]) {
      engine.apply({ ...input, at: 5000 } as StatusInput);
      restored.apply({ ...input, at: 5000 } as StatusInput);
      expect(restored.status).toEqual(engine.status);
    }
    expect(restored.status).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'Stop' } });
    // A fresh engine told the same title reads the spinner as work instead.
    const fresh = new StatusEngine(claudeLike, 0);
    fresh.apply({ kind: 'title', title: '⠂ Working', at: 5000 });
    expect(fresh.status.state).toBe('working');
  });

  it('names what is wrong with a snapshot that cannot be restored', () => {
    const good = JSON.parse(JSON.stringify(run(claudeLike, [hook('attention', 'PermissionRequest')]).engine.snapshot())) as Record<string, unknown>;
    expect(engineSnapshotProblem({ ...good, hook: { ...(good.hook as object), state: 'asleep' } })).toBe("hook.state 'asleep' is not a state");
    expect(engineSnapshotProblem({ ...good, current: { ...(good.current as object), why: { channel: 'telepathy', at: 1 } } })).toBe(
      "current.why.channel 'telepathy' is not a channel",
    );
    expect(engineSnapshotProblem({ ...good, focused: 'yes' })).toBe('titleShowsAttention or focused is not true or false');
    expect(engineSnapshotProblem(null)).toBe('not an object');
  });
});
