// One session's status state machine (docs/protocol.md, "Status"). It takes what each
// channel observed — hook events, title changes, screen snapshots, the process exiting, the
// user looking — and yields the state with its reason. Pure: time arrives with each input and
// the owner calls tick() at nextDeadline(); no timers, no I/O.
//
// Precedence:
// - hooks, when declared and reporting, are the source of truth;
// - titleStatus coexists: a title whose classification *changes* after the last hook event
//   overrides it (it corrects a missed event the instant the title flips), except that only a
//   working or attention title may end a hook's attention (a title going quiet while the agent
//   waits on the user must never hide the prompt);
// - status (screen rules) is ignored when hooks are declared, unless they never report;
// - a question on screen (a selection menu, a y/n prompt, a trust dialog) is attention while no
//   hook has reported yet, for agents without hooks, and once hooks stopped reporting;
// - attention beats working; an exited process is never working;
// - a failure — the manifest's failure hook event (an API error, a usage limit), or the process
//   ending with a non-zero code or a signal — is attention, its why carrying the failure's kind
//   and reason; the next turn's working event, or another state, clears it as any attention;
// - a failure the screen shows (manifest `failureScreen`: a line that matches, and was not on
//   screen when the turn began) is attention with that line as the reason until the next turn
//   begins; the hook that ends the turn keeps it. A turn begins with a working hook while hooks
//   report, with the title, progress or screen turning working while they decide the state, and
//   when the user sends a line, unless a prompt hook reports (so an agent whose failed turn fires
//   no hook, and has no prompt hook, is caught too);
// - done = finished while the user was elsewhere; it becomes idle when the user looks.
import { classifyText, compileStatusRules, type CompiledRules, type StatusRulesInput } from './statusRules';
import { STATE_PRIORITY, type HealthNote, type SessionState, type SessionStatus, type StatusChannel, type StatusWhy } from './sessionState';
import { clip, questionFromScreen, type QuestionTui } from '../questions';
import type { FailureMark, StatusClaim, StatusEngineSnapshot } from './engineSnapshot';
import { failureFromExit, failureFromPayload, type StatusFailure } from './failureReason';
import { compileRulePattern, type RulePattern } from './rulePattern';

/** The why strip quotes a question on screen in at most this many characters. */
const MAX_QUOTED_QUESTION_CHARS = 120;

/** Declared hooks that announce the session at launch should have reported by then. A cold
 *  start of a Node-based CLI on a busy machine takes a few seconds; 15 s avoids false alarms. */
export const HOOK_START_GRACE_MS = 15_000;
/** Prompt-submit and tool hooks fire as the agent starts working, so hooks that are still
 *  silent 5 s after the title or screen showed work are not reporting. */
export const HOOK_ACTIVITY_GRACE_MS = 5_000;

export interface StatusEngineConfig {
  /** The manifest declares `hooks`. */
  hooksDeclared: boolean;
  /** One of the declared hook events fires at launch (SessionStart / sessionStart). */
  hooksReportAtStart?: boolean;
  /** One of the declared hook events fires on every prompt (UserPromptSubmit and kin): a turn of
   *  work the title or screen shows must bring a hook, or hooks have stopped reporting. */
  hooksReportOnPrompt?: boolean;
  titleStatus?: StatusRulesInput;
  status?: StatusRulesInput;
  /** Regexes over screen lines that show a turn failed (manifest `failureScreen`); a pattern's
   *  first capture group, when it has one, is the part that describes the failure. */
  failureScreen?: readonly string[];
  startGraceMs?: number;
  activityGraceMs?: number;
  /** Read questions off the screen (the agent's TUI conventions); omitted: no detector (a shell). */
  questionTui?: QuestionTui;
  /** The session runs the user's login shell: its exit code is the last command's (Ctrl-D after
   *  a failed `make`), not the shell failing, so any exit is done. */
  shellExit?: boolean;
}

export type StatusInput =
  /** `failure`: the event is the manifest's failure event, classified (src/protocol/status/failureReason.ts). */
  | { kind: 'hook'; state: SessionState; event: string; at: number; failure?: StatusFailure }
  | { kind: 'title'; title: string; at: number }
  /** An OSC 9;4 progress report (manifest `progressStatus`): active = a value, indeterminate, error or paused. */
  | { kind: 'progress'; active: boolean; value: number; at: number }
  | { kind: 'screen'; lines: readonly string[]; at: number }
  /** `lastLine`: the last non-empty line on the screen, which says why a failed process ended. */
  | { kind: 'exit'; exitCode: number; signal?: number; lastLine?: string; at: number }
  | { kind: 'focus'; focused: boolean; at: number }
  /** The user sent a line to the program (typed Enter, or `termio sessions send --enter`): a turn
   *  begins, unless the agent's prompt hook reports and says so itself. */
  | { kind: 'input'; at: number }
  | { kind: 'tick'; at: number };

/** What one channel currently claims (see StatusClaim). */
type Claim = StatusClaim;

const HOOKS_STOPPED_REPORTING =
  'hooks stopped reporting: the agent went to work with no hook since (hooks removed or ' +
  'changed while it ran?); status follows the title and screen until one reports again';

const HOOKS_NOT_REPORTING =
  'hooks not reporting: the agent has hooks declared but none reached Termio (not installed, ' +
  'a vendor trust gate, or an old CLI); status falls back to the title and screen';

/** The note naming the release (e.g. "Codex 0.169.1"): a release whose hooks never run says so. */
export function hooksNotReportingMessage(release: string | null): string {
  if (release === null) return HOOKS_NOT_REPORTING;
  return (
    `hooks not reporting: ${release} has hooks declared but none reached Termio (not installed, ` +
    'a vendor trust gate, or a release whose hooks do not run); status falls back to the title and screen'
  );
}

export class StatusEngine {
  private readonly titleRules: CompiledRules;
  private readonly screenRules: CompiledRules;
  private readonly failureRules: RulePattern[] = [];
  private readonly failureRuleErrors: string[] = [];
  /** A failure the screen showed since the turn began (attention until the next turn begins). */
  private screenFailure: Claim | null = null;
  /** The failure lines on screen when the last turn began; null before any turn, when old lines
   *  (a resumed conversation's) are not the session's news. */
  private failureMark: FailureMark | null = null;
  /** The failure lines of the latest screen. */
  private failureSeen: FailureMark = { count: 0, last: '' };
  private readonly startGraceMs: number;
  private readonly activityGraceMs: number;
  private seq = 0;
  private hook: Claim | null = null;
  private title: Claim | null = null;
  private screen: Claim | null = null;
  /** A question on screen: attention while the detector applies (see watchesQuestions). */
  private question: Claim | null = null;
  /** OSC 9;4 progress: working while a report is active; an in-band channel beside the title. */
  private progress: Claim | null = null;
  private exitWhy: StatusWhy | null = null;
  /** The title has shown attention at some point: only then can its working end a hook's attention. */
  private titleShowsAttention = false;
  private focused = false;
  private hooksNotReporting: HealthNote | null = null;
  /** The agent's release, once known, named in the "hooks not reporting" note. */
  private release: string | null = null;
  /** When the title or screen first showed the agent busy while hooks were silent. */
  private activitySeenAt: number | null = null;
  /** When the title or screen showed a new turn of work after the last hook (prompt hooks only). */
  private workAfterHookAt: number | null = null;
  private current: SessionStatus;

  constructor(
    private readonly config: StatusEngineConfig,
    private readonly startedAt: number,
  ) {
    this.titleRules = compileStatusRules(config.titleStatus, 'titleStatus');
    this.screenRules = compileStatusRules(config.status, 'status');
    for (const source of config.failureScreen ?? []) {
      try {
        this.failureRules.push(compileRulePattern(source));
      } catch (err) {
        this.failureRuleErrors.push(`failureScreen: bad regex ${JSON.stringify(source)}: ${(err as Error).message}`);
      }
    }
    this.startGraceMs = config.startGraceMs ?? HOOK_START_GRACE_MS;
    this.activityGraceMs = config.activityGraceMs ?? HOOK_ACTIVITY_GRACE_MS;
    this.current = { state: 'idle', since: startedAt, why: { channel: 'start', at: startedAt }, health: [] };
  }

  /** Everything the engine has learned, as plain data: a new host adopting the session carries
   *  on from it (a hook's attention stays attention) instead of starting from "nothing known". */
  snapshot(): StatusEngineSnapshot {
    return {
      startedAt: this.startedAt,
      seq: this.seq,
      hook: this.hook,
      title: this.title,
      screen: this.screen,
      question: this.question,
      progress: this.progress,
      exitWhy: this.exitWhy,
      titleShowsAttention: this.titleShowsAttention,
      focused: this.focused,
      hooksNotReporting: this.hooksNotReporting,
      activitySeenAt: this.activitySeenAt,
      workAfterHookAt: this.workAfterHookAt,
      screenFailure: this.screenFailure,
      failureMark: this.failureMark,
      current: this.current,
    };
  }

  /** An engine that carries on from a snapshot (taken by an engine of the same agent's config). */
  static restore(config: StatusEngineConfig, s: StatusEngineSnapshot): StatusEngine {
    const e = new StatusEngine(config, s.startedAt);
    ({ seq: e.seq, hook: e.hook, title: e.title, screen: e.screen, question: e.question, progress: e.progress, exitWhy: e.exitWhy } = s);
    ({ titleShowsAttention: e.titleShowsAttention, focused: e.focused, hooksNotReporting: e.hooksNotReporting } = s);
    ({ activitySeenAt: e.activitySeenAt, workAfterHookAt: e.workAfterHookAt, current: e.current } = s);
    e.screenFailure = s.screenFailure ?? null;
    e.failureMark = s.failureMark ?? null;
    return e;
  }

  /** Rules the manifest gave that could not be compiled (bad regex, unknown state). */
  get ruleErrors(): string[] {
    return [...this.titleRules.errors, ...this.screenRules.errors, ...this.failureRuleErrors];
  }

  get status(): SessionStatus {
    return this.current;
  }

  get hooksReporting(): boolean {
    return this.hook !== null;
  }

  /** Whether a question on screen counts now: no hooks declared, none reported yet, or stopped. */
  get watchesQuestions(): boolean {
    return this.config.questionTui !== undefined && !this.exitWhy && (!this.config.hooksDeclared || !this.hook || this.hooksNotReporting !== null);
  }

  /** Feeds one observation; returns true when the state, its reason or the health changed. */
  apply(input: StatusInput): boolean {
    const seq = ++this.seq;
    switch (input.kind) {
      case 'hook':
        if (this.exitWhy) return false;
        this.hook = {
          // A failure is attention whatever the manifest wrote (the schema insists on it too).
          state: input.failure ? 'attention' : input.state,
          why: { channel: 'hooks', event: input.event, at: input.at, failure: input.failure || undefined },
          seq,
          prevSeq: this.hook?.seq ?? 0,
        };
        if (this.hook.state === 'working') this.beginTurn();
        break;
      case 'title':
        if (this.exitWhy) return false;
        this.title = this.flip(this.title, this.titleRules, input.title, 'titleStatus', input.at, seq);
        if (this.title?.state === 'attention') this.titleShowsAttention = true;
        this.beginTurnIfWorking(this.title, seq);
        break;
      case 'progress': {
        if (this.exitWhy) return false;
        const state = input.active ? 'working' : null;
        if (this.progress?.state === state || (!this.progress && state === null)) break;
        const event = input.active ? `${input.value}%` : 'cleared';
        this.progress = { state, why: { channel: 'progress', event, at: input.at }, seq, prevSeq: this.progress?.seq ?? 0 };
        this.beginTurnIfWorking(this.progress, seq);
        break;
      }
      case 'screen':
        if (this.exitWhy) return false;
        this.screen = this.flip(this.screen, this.screenRules, input.lines.join('\n'), 'status', input.at, seq);
        // Before the failure lines are read: a failure shown as the work starts is this turn's.
        this.beginTurnIfWorking(this.screen, seq);
        this.question = this.readQuestion(input.lines, input.at, seq);
        this.readFailure(input.lines, input.at, seq);
        break;
      case 'exit':
        if (this.exitWhy) return false;
        this.exitWhy = {
          channel: 'exit',
          event: input.signal ? `exit signal ${input.signal}` : `exit ${input.exitCode}`,
          at: input.at,
          // Termio sends a signal only when it closes the session, and then nothing is left to
          // show: a signal seen here, or a non-zero code, is the program failing.
          failure: (input.signal || input.exitCode !== 0) && !this.config.shellExit ? failureFromExit(input.exitCode, input.signal, input.lastLine) : undefined,
        };
        break;
      case 'focus':
        this.focused = input.focused;
        break;
      case 'input':
        if (this.exitWhy) return false;
        // Where a prompt hook reports, it says when a turn begins (a bare Enter may begin none).
        if (!(this.config.hooksReportOnPrompt && this.rulingHook())) this.beginTurn();
        break;
      case 'tick':
        break;
    }
    this.checkHookHealth(input);
    return this.resolve(input);
  }

  /** The next time tick() can change anything (the hook-health deadline), or null. */
  nextDeadline(): number | null {
    if (!this.config.hooksDeclared || this.hooksNotReporting || this.exitWhy) return null;
    if (this.hook) return this.workAfterHookAt === null ? null : this.workAfterHookAt + this.activityGraceMs;
    const deadlines: number[] = [];
    if (this.config.hooksReportAtStart) deadlines.push(this.startedAt + this.startGraceMs);
    if (this.activitySeenAt !== null) deadlines.push(this.activitySeenAt + this.activityGraceMs);
    return deadlines.length ? Math.min(...deadlines) : null;
  }

  /** A new claim when the text's classification changed, else the old claim (with its time). */
  private flip(previous: Claim | null, rules: CompiledRules, text: string, channel: StatusChannel, at: number, seq: number): Claim | null {
    if (rules.rules.length === 0) return previous;
    const c = classifyText(rules, text);
    const state = c?.state ?? null;
    if (previous?.state === state || (!previous && state === null)) return previous;
    const why: StatusWhy = c ? { channel, rule: c.rule, at } : { channel, event: 'no rule matches', at };
    return { state, why, seq, prevSeq: previous?.seq ?? 0 };
  }

  /** The question claim for this screen: a new claim when a question appeared, changed or went. */
  private readQuestion(lines: readonly string[], at: number, seq: number): Claim | null {
    const previous = this.question;
    if (this.config.questionTui === undefined) return previous;
    const q = questionFromScreen(lines, this.config.questionTui);
    const event = q ? `“${clip(q.text, MAX_QUOTED_QUESTION_CHARS)}”` : 'no question on screen';
    if (previous ? previous.why.event === event : q === null) return previous;
    return { state: q ? 'attention' : null, why: { channel: 'question', event, at }, seq, prevSeq: previous?.seq ?? 0 };
  }

  /** A turn began: the failure lines on screen now are older news, and a failure read off the
   *  screen is over. */
  private beginTurn(): void {
    this.screenFailure = null;
    this.failureMark = { count: this.failureSeen.count, last: this.failureSeen.last, seq: this.seq };
  }

  /** An in-band claim that just turned working begins a turn while those channels decide the state. */
  private beginTurnIfWorking(claim: Claim | null, seq: number): void {
    if (claim?.seq === seq && claim.state === 'working' && this.weighedClaims().includes(claim)) this.beginTurn();
  }

  /** Notes the failure lines on screen; one that is new since the turn began is its failure, and
   *  a later one replaces it. */
  private readFailure(lines: readonly string[], at: number, seq: number): void {
    if (this.failureRules.length === 0) return;
    const before = this.failureSeen;
    const seen = failureLines(lines, this.failureRules);
    this.failureSeen = seen;
    const mark = this.failureMark;
    if (!mark || seen.count === 0 || sameLines(seen, mark)) return;
    if (this.screenFailure && sameLines(seen, before)) return;
    const failure = failureFromPayload(seen.text, at);
    this.screenFailure = { state: 'attention', why: { channel: 'status', rule: seen.rule, event: 'failure on screen', at, failure }, seq, prevSeq: 0 };
  }

  private checkHookHealth(input: StatusInput): void {
    const at = input.at;
    if (!this.config.hooksDeclared || this.exitWhy) return;
    const busy = (c: Claim | null) => c !== null && (c.state === 'working' || c.state === 'attention');
    if (this.hook) {
      if (input.kind === 'hook') {
        // A hook reported: whatever was said about hooks no longer holds.
        this.hooksNotReporting = null;
        this.workAfterHookAt = null;
        return;
      }
      // Hooks that fire on every prompt must follow a new turn of work within the grace. A turn
      // is new when the last hook had ended one (done or idle); while it says working, the
      // title's work is that same turn, however long it runs without another hook.
      const turnEnded = this.hook.state === 'done' || this.hook.state === 'idle';
      const hookSeq = this.hook.seq;
      const newWork = (c: Claim | null) => turnEnded && c !== null && busy(c) && c.seq > hookSeq && c.seq === this.seq;
      if (this.config.hooksReportOnPrompt && this.workAfterHookAt === null && (newWork(this.title) || newWork(this.progress) || newWork(this.screen)))
        this.workAfterHookAt = at;
      const deadline = this.nextDeadline();
      if (deadline !== null && at >= deadline) this.hooksNotReporting = { code: 'hooksStoppedReporting', message: HOOKS_STOPPED_REPORTING, since: at };
      return;
    }
    if (this.activitySeenAt === null && (busy(this.title) || busy(this.progress) || busy(this.screen))) this.activitySeenAt = at;
    const deadline = this.nextDeadline();
    if (deadline !== null && at >= deadline) this.hooksNotReporting = { code: 'hooksNotReporting', message: hooksNotReportingMessage(this.release), since: at };
  }

  /** Names the agent's release (e.g. "Codex 0.169.1") in the note that its hooks are not
   *  reporting; returns true when the note present now changed. */
  nameRelease(release: string): boolean {
    this.release = release;
    const note = this.hooksNotReporting;
    if (note?.code !== 'hooksNotReporting' || note.message === hooksNotReportingMessage(release)) return false;
    this.hooksNotReporting = { ...note, message: hooksNotReportingMessage(release) };
    this.current = { ...this.current, health: [this.hooksNotReporting] };
    return true;
  }

  /** The state the channels claim, before done/idle is decided by where the user is. */
  private raw(): { state: SessionState; why: StatusWhy } {
    if (this.exitWhy) return { state: this.exitWhy.failure ? 'attention' : 'done', why: this.exitWhy };
    const failed = this.screenFailure;
    if (failed) {
      // A hook that ended this turn (before or after the line was read: the pty and the hook
      // socket race) names the end; the screen says why. An earlier turn's end says nothing.
      const hook = this.hook;
      const ended = hook && (hook.state === 'done' || hook.state === 'idle') && hook.seq > (this.failureMark?.seq ?? 0);
      return { state: 'attention', why: ended ? { ...hook.why, failure: failed.why.failure! } : failed.why };
    }
    // Hooks rule while they report; once they stopped (a health note), the title and screen do.
    const hook = this.rulingHook();
    if (hook) {
      // The in-band channels (title, progress) correct hooks alike: the latest one that claims a state speaks.
      const title = this.progress?.state && (!this.title?.state || this.progress.seq > this.title.seq) ? this.progress : this.title;
      if (title && title.state !== null && title.seq > hook.seq) {
        // A working title ends a hook's attention only when it is news from after the ask: the
        // title had already changed since the hook (quiet → busy again), or it is a title that
        // shows attention itself (Codex, Gemini) and flipped back. A spinner the agent wrote
        // before its permission hook but that was read after it (the pty and the hook socket
        // race) must not clear the attention.
        const workingAfterAsk = title.state === 'working' && (this.titleShowsAttention || title.prevSeq > hook.seq);
        const keepsAttention = hook.state === 'attention' && (title.state === 'working' ? !workingAfterAsk : title.state !== 'attention');
        if (!keepsAttention) return { state: title.state, why: title.why };
      }
      return { state: hook.state as SessionState, why: hook.why };
    }
    let best: Claim | null = null;
    let latest: Claim | null = null;
    for (const c of this.weighedClaims()) {
      if (!c) continue;
      if (!latest || c.seq > latest.seq) latest = c;
      if (c.state === null) continue;
      const rank = STATE_PRIORITY.indexOf(c.state);
      if (
        !best ||
        rank < STATE_PRIORITY.indexOf(best.state as SessionState) ||
        (rank === STATE_PRIORITY.indexOf(best.state as SessionState) && c.seq > best.seq)
      )
        best = c;
    }
    if (best) return { state: best.state as SessionState, why: best.why };
    return { state: 'idle', why: latest ? latest.why : { channel: 'start', at: this.startedAt } };
  }

  /** The hook claim while hooks are declared and reporting: it then decides the state. */
  private rulingHook(): Claim | null {
    return this.config.hooksDeclared && !this.hooksNotReporting ? this.hook : null;
  }

  /** The claims that decide the state when no hook does (none while one does). */
  private weighedClaims(): Array<Claim | null> {
    if (this.rulingHook()) return [];
    const claims = [this.title, this.progress];
    // Screen rules count only for agents without hooks, or whose hooks are not reporting.
    if (!this.config.hooksDeclared || this.hooksNotReporting) claims.push(this.screen);
    if (this.watchesQuestions) claims.push(this.question);
    return claims;
  }

  private resolve(input: StatusInput): boolean {
    const prev = this.current;
    const raw = this.raw();
    let state = raw.state;
    let why = raw.why;
    if (state === 'done' || state === 'idle') {
      if (this.focused) {
        state = 'idle';
        if (prev.state === 'done' && input.kind === 'focus') why = { channel: 'focus', event: 'user looked', at: input.at };
      } else if (prev.state !== 'idle') {
        // Finished (or still finished) while the user was elsewhere.
        state = 'done';
        if (prev.state === 'done' && !confirmsByHook(why, prev.why)) why = prev.why;
      }
    }
    const health = this.hooksNotReporting ? [this.hooksNotReporting] : [];
    const healthChanged = health.length !== prev.health.length;
    // Another failure (or none now) while the state stays attention is news: the reason changed.
    const failureChanged = why.failure?.reason !== prev.why.failure?.reason;
    if (failureChanged && state === prev.state) {
      this.current = { ...prev, why, health };
      return true;
    }
    if (state === prev.state && !healthChanged) {
      // The first real evidence for the state the session started in (the agent's idle title)
      // replaces "nothing known yet" as its reason, without counting as a change.
      if (prev.why.channel === 'start' && why.channel !== 'start') this.current = { ...prev, why };
      // A hook confirming what the title showed a moment earlier (the pty and the hook socket
      // race) becomes the reason: it is the precise channel, and it names the event.
      else if (confirmsByHook(why, prev.why)) this.current = { ...prev, why };
      return false;
    }
    this.current = state === prev.state ? { ...prev, health } : { state, since: input.at, why, health };
    return true;
  }
}

/** A failure line and the lines that continue it (a wrapped message: no blank line between, and
 *  starting with a letter, a digit, a quote or JSON punctuation rather than a TUI's marker). */
const MAX_CONTINUED_LINES = 6;
const CONTINUES = /^\s*[\p{L}\p{N}"'{}[\](),:.-]/u;

/** The failure lines on a screen: how many match a rule and the last one (which tell one screen's
 *  failures from another's), with what describes it (the line, or its pattern's first capture
 *  group, joined with the lines that continue it) and the rule it matched. */
export function failureLines(lines: readonly string[], rules: readonly RulePattern[]): FailureMark & { text: string; rule: string } {
  let count = 0;
  let last = '';
  let text = '';
  let rule = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const hit = firstMatch(rules, line);
    if (!hit) continue;
    count++;
    last = line.trim();
    rule = hit.rule.source;
    const parts = [(hit.rule.groups > 0 ? hit.text : line).trim()];
    for (let k = i + 1; k < lines.length && k <= i + MAX_CONTINUED_LINES && lines[k]!.trim() && CONTINUES.test(lines[k]!); k++) parts.push(lines[k]!.trim());
    text = parts.join(' ');
  }
  return { count, last, text, rule };
}

function firstMatch(rules: readonly RulePattern[], line: string): { rule: RulePattern; text: string } | null {
  for (const rule of rules) {
    const text = rule.find(line);
    if (text !== null) return { rule, text };
  }
  return null;
}

function sameLines(a: FailureMark, b: FailureMark): boolean {
  return a.count === b.count && a.last === b.last;
}

/** The new reason is a hook event and the old one an in-band or screen guess at the same state. */
function confirmsByHook(next: StatusWhy, prev: StatusWhy): boolean {
  return next.channel === 'hooks' && prev.channel !== 'hooks' && prev.channel !== 'start' && prev.channel !== 'focus';
}
