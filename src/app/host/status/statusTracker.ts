// Live status for every session: feeds each session's title changes, screen snapshots
// (throttled), exit, the user's focus and its agent's hook reports into a protocol StatusEngine
// and emits state changes, the details hooks carry (tool, prompt title) and conversation-id
// changes (the agent rotated with /clear or /new: the session rebinds). Only reports from the
// session's own agent count (src/protocol/hookOrigin.ts); a nested agent's are recorded, not applied.
import { describeHookOrigin, hookOrigin } from '../../../protocol/hookOrigin';
import { attributeReport } from '../../../protocol/hookAttribution';
import type { HookReport } from '../../../protocol/hookReport';
import { extractHookDetails, failureOfReport, type HookDetails } from '../../../protocol/hookReport';
import { hooksReportAtStart, hooksReportOnPrompt, type HooksDeclaration } from '../../../protocol/hooks';
import { lastScreenLine, StatusEngine, type SessionStatus, type StatusInput, type StatusRulesInput } from '../../../protocol/status';
import type { StatusEngineSnapshot } from '../../../protocol/status/engineSnapshot';
import { tuiOf } from '../../../protocol/questions';
import { Emitter, type Disposable, type Event } from '../../../protocol/events';
import { nullLogger, type Logger } from '../../services/log';

/** The part of a terminal Session the tracker reads (src/terminal's Session satisfies it). */
export interface StatusSessionSource {
  readonly id: string;
  /** The agent's process (the pty's child): hook reports must come from it. */
  readonly pid: number;
  readonly title: string;
  readonly exited: { exitCode: number; signal?: number } | null;
  readonly onTitle: Event<string>;
  readonly onRender: Event<void>;
  readonly onExit: Event<{ exitCode: number; signal?: number }>;
  /** OSC 9;4 progress reports (read when the manifest says `progressStatus`). */
  readonly onProgress?: Event<{ state: number; value: number }>;
  /** What went to the program (keys, pastes, sent text): a line sent begins a turn. */
  readonly onInput?: Event<string>;
  screenLines(opts?: { lines?: number }): string[];
}

/** The status fields of an agent's manifest. */
export interface AgentStatusConfig {
  agentId: string;
  hooks?: Pick<HooksDeclaration, 'dialect' | 'events' | 'conversation' | 'tool' | 'promptTitle'>;
  titleStatus?: StatusRulesInput;
  status?: StatusRulesInput;
  /** Screen lines that show a failed turn (manifest `failureScreen`). */
  failureScreen?: readonly string[];
  /** The agent reports work as OSC 9;4 progress. */
  progressStatus?: boolean;
  /** Read questions off its screen before hooks report (every agent but the plain terminal). */
  questions?: boolean;
  /** It is the user's login shell: its exit code is the last command's, so no exit is a failure. */
  loginShell?: boolean;
}

/** Screen rules look at a snapshot at most this often: a flooding agent repaints hundreds of
 *  times a second, and a state shown 100 ms late is still "at once" to a person. */
export const SCREEN_SNAPSHOT_INTERVAL_MS = 100;

/** A session that works this long with no output and no hook report is flagged stalled, unless
 *  the owner sets another time (the `sessions.stallSeconds` setting). */
export const DEFAULT_STALL_MS = 120_000;

/** Conversations remembered as no tab's (see StatusTracker.orphans). */
const MAX_ORPHAN_CONVERSATIONS = 1000;

export interface StallChange {
  sessionId: string;
  /** The last sign of life before the silence (epoch ms), or null: it is no longer stalled. */
  since: number | null;
}

export interface StatusChange {
  sessionId: string;
  status: SessionStatus;
}

export interface HookDetailsEvent {
  sessionId: string;
  report: HookReport;
  details: HookDetails;
}

export interface ConversationChange {
  sessionId: string;
  conversationId: string;
  previous: string | null;
  transcriptPath?: string;
}

/** What the tracker knows of a session beyond its screen: a held session's checkpoint keeps
 *  it, so the host that adopts the session carries its state on (see StatusEngine.snapshot). */
export interface TrackerSnapshot {
  engine: StatusEngineSnapshot;
  workReports: number;
  /** The process that runs the agent's hooks, once a report named it. */
  agentRunner: number | null;
}

/** A report that reached a tracked session but was not applied, and why. */
export interface IgnoredReport {
  event: string;
  why: string;
  at: number;
}

interface Tracked {
  source: StatusSessionSource;
  /** The process that runs the agent's hooks, learned from its first report (see hookOrigin). */
  agentRunner: number | undefined;
  /** Applied reports of working or attention (a turn's work, as its hooks saw it). */
  workReports: number;
  lastIgnored: IgnoredReport | null;
  agent: AgentStatusConfig | null;
  engine: StatusEngine;
  conversationId: string | null;
  subscriptions: Disposable[];
  deadlineTimer: NodeJS.Timeout | null;
  screenTimer: NodeJS.Timeout | null;
  lastSnapshotAt: number;
  /** The last output or hook report (epoch ms). */
  lastLifeAt: number;
  stallTimer: NodeJS.Timeout | null;
  stalledSince: number | null;
  /** The percentage of the active OSC 9;4 report, or null. */
  progress: number | null;
}

export interface StatusTrackerOptions {
  now?: () => number;
  logger?: Logger;
  /** Working this long with no output and no hook report is a stall. Default DEFAULT_STALL_MS. */
  stallMs?: number;
}

export class StatusTracker {
  private readonly sessions = new Map<string, Tracked>();
  /** Conversations a fresh start began under some tab's environment that no tab took (an agent
   *  outside Termio served by a daemon a tab started): their reports are nobody's. */
  private readonly orphans = new Set<string>();
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly changeEmitter = new Emitter<StatusChange>();
  private readonly detailsEmitter = new Emitter<HookDetailsEvent>();
  private readonly conversationEmitter = new Emitter<ConversationChange>();
  private readonly stallEmitter = new Emitter<StallChange>();
  private stallMs: number;
  private readonly progressEmitter = new Emitter<{ sessionId: string; progress: number | null }>();
  /** A session's OSC 9;4 percentage changed (null: no active report). */
  readonly onProgress = this.progressEmitter.event;
  readonly onStateChange = this.changeEmitter.event;
  /** A working session went silent for the stall time, or showed life again. */
  readonly onStall = this.stallEmitter.event;
  readonly onHookDetails = this.detailsEmitter.event;
  readonly onConversation = this.conversationEmitter.event;
  /** Reports for a hosted session whose agent is not the one that reported (e.g. `claude`
   *  typed into a plain shell tab): ignored, counted. */
  ignoredReports = 0;

  constructor(opts: StatusTrackerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? nullLogger;
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
  }

  /** How long a working session may be silent before it counts as stalled. */
  get stallTimeMs(): number {
    return this.stallMs;
  }

  /** A new stall time; sessions already silent are judged by it at their next check. */
  setStallMs(ms: number): void {
    this.stallMs = ms;
    for (const t of this.sessions.values()) {
      if (t.stallTimer) clearTimeout(t.stallTimer);
      t.stallTimer = null;
      this.armStall(t);
    }
  }

  /** Starts tracking a session; `conversationId` is the one it is bound to, if any; `restored`
   *  what a previous host's tracker knew of it (an adopted session keeps its state). */
  track(source: StatusSessionSource, agent: AgentStatusConfig | null, opts: { conversationId?: string; restored?: TrackerSnapshot } = {}): Disposable {
    this.untrack(source.id);
    const at = this.now();
    const config = {
      hooksDeclared: agent?.hooks !== undefined,
      hooksReportAtStart: agent?.hooks ? hooksReportAtStart(agent.hooks) : false,
      hooksReportOnPrompt: agent?.hooks ? hooksReportOnPrompt(agent.hooks) : false,
      titleStatus: agent?.titleStatus || undefined,
      status: agent?.status || undefined,
      failureScreen: agent?.failureScreen || undefined,
      questionTui: agent?.questions ? tuiOf(agent.hooks?.dialect ?? agent.agentId) : undefined,
      shellExit: agent?.loginShell ? true : undefined,
    };
    const restored = opts.restored;
    const engine = restored ? StatusEngine.restore(config, restored.engine) : new StatusEngine(config, at);
    for (const e of engine.ruleErrors) this.logger.warn('status rule skipped', { agent: agent?.agentId, error: e });
    const t: Tracked = {
      source,
      agentRunner: restored?.agentRunner ?? undefined,
      workReports: restored?.workReports ?? 0,
      lastIgnored: null,
      agent,
      engine,
      conversationId: opts.conversationId ?? null,
      subscriptions: [],
      deadlineTimer: null,
      screenTimer: null,
      lastSnapshotAt: 0,
      lastLifeAt: at,
      stallTimer: null,
      stalledSince: null,
      progress: null,
    };
    this.sessions.set(source.id, t);
    const id = source.id;
    t.subscriptions.push(source.onTitle((title) => this.feed(id, { kind: 'title', title, at: this.now() })));
    t.subscriptions.push(source.onExit((e) => this.feedExit(t, e, this.now())));
    t.subscriptions.push(
      source.onRender(() => {
        this.showedLife(t);
        if (agent?.status || agent?.failureScreen || t.engine.watchesQuestions) this.scheduleSnapshot(t);
      }),
    );
    if (agent?.progressStatus && source.onProgress) t.subscriptions.push(source.onProgress((p) => this.handleProgress(t, p)));
    // A failure line is news only after the turn began, and some agents' failed turn fires no hook.
    if (agent?.failureScreen && source.onInput)
      t.subscriptions.push(source.onInput((data) => void (sendsLine(data) && this.feed(id, { kind: 'input', at: this.now() }))));
    if (source.title) this.feed(id, { kind: 'title', title: source.title, at });
    if (source.exited) this.feedExit(t, source.exited, at);
    this.armDeadline(t);
    return { dispose: () => this.untrack(id) };
  }

  /** The process ended: what its screen says last goes with it (a failed agent's parting words). */
  private feedExit(t: Tracked, e: { exitCode: number; signal?: number }, at: number): void {
    const lastLine = e.exitCode !== 0 || e.signal ? lastScreenLine(t.source.screenLines()) : undefined;
    this.feed(t.source.id, { kind: 'exit', exitCode: e.exitCode, signal: e.signal || undefined, lastLine: lastLine || undefined, at });
  }

  /** What a new host needs to carry the session's status on, or undefined when it is not tracked. */
  snapshot(sessionId: string): TrackerSnapshot | undefined {
    const t = this.sessions.get(sessionId);
    return t ? { engine: t.engine.snapshot(), workReports: t.workReports, agentRunner: t.agentRunner ?? null } : undefined;
  }

  untrack(sessionId: string): void {
    const t = this.sessions.get(sessionId);
    if (!t) return;
    for (const s of t.subscriptions) s.dispose();
    if (t.deadlineTimer) clearTimeout(t.deadlineTimer);
    if (t.screenTimer) clearTimeout(t.screenTimer);
    if (t.stallTimer) clearTimeout(t.stallTimer);
    this.sessions.delete(sessionId);
  }

  isTracked(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** The engine's status, with a "stalled" health note while the session is stalled. */
  status(sessionId: string): SessionStatus | undefined {
    const t = this.sessions.get(sessionId);
    if (!t) return undefined;
    const st = t.engine.status;
    if (t.stalledSince === null) return st;
    const silent = Math.round((this.now() - t.stalledSince) / 1000);
    const note = { code: 'stalled' as const, message: `stalled: working with no output and no hook report for ${silent}s`, since: t.stalledSince };
    return { ...st, health: [...st.health, note] };
  }

  /** The percentage of the session's active OSC 9;4 progress report, or null. */
  progressOf(sessionId: string): number | null {
    return this.sessions.get(sessionId)?.progress ?? null;
  }

  private handleProgress(t: Tracked, p: { state: number; value: number }): void {
    // ConEmu states: 0 clear; 1 value; 2 error; 3 indeterminate (no value); 4 paused.
    const active = p.state !== 0;
    const progress = p.state === 1 || p.state === 2 || p.state === 4 ? p.value : null;
    if (progress !== t.progress) {
      t.progress = progress;
      this.progressEmitter.fire({ sessionId: t.source.id, progress });
    }
    this.feed(t.source.id, { kind: 'progress', active, value: p.value, at: this.now() });
  }

  /** Names the session's agent release in its "hooks not reporting" note (see StatusEngine). */
  nameRelease(sessionId: string, release: string): void {
    const t = this.sessions.get(sessionId);
    if (t?.engine.nameRelease(release)) this.changeEmitter.fire({ sessionId, status: t.engine.status });
  }

  /** The pid of a tracked session's agent. */
  agentPid(sessionId: string): number | undefined {
    return this.sessions.get(sessionId)?.source.pid;
  }

  /** How many working or attention reports of the session's own agent were applied so far. */
  workReports(sessionId: string): number {
    return this.sessions.get(sessionId)?.workReports ?? 0;
  }

  /** The last report that named the session but was not applied (a nested agent's), if any. */
  lastIgnored(sessionId: string): IgnoredReport | null {
    return this.sessions.get(sessionId)?.lastIgnored ?? null;
  }

  /** The user is (or stops) looking at the session: a done session becomes idle. */
  setFocus(sessionId: string, focused: boolean): void {
    this.feed(sessionId, { kind: 'focus', focused, at: this.now() });
  }

  /** Feed for HookServer.onReport. */
  handleReport(report: HookReport): void {
    const t = this.sessions.get(report.session);
    if (!t || !t.agent?.hooks || t.agent.agentId !== report.agent) {
      this.ignoredReports++;
      return;
    }
    const hooks = t.agent.hooks;
    const details = extractHookDetails(report, {
      dialect: hooks.dialect,
      conversationKey: hooks.conversation || undefined,
      toolKey: hooks.tool || undefined,
      promptKey: hooks.promptTitle || undefined,
    });
    const who = attributeReport(
      { id: t.source.id, agentId: t.agent.agentId, conversationId: t.conversationId },
      { event: report.event, conversationId: details.conversationId, payload: report.payload },
      [...this.sessions.values()].map((x) => ({ id: x.source.id, agentId: x.agent?.agentId ?? '', conversationId: x.conversationId })),
      this.orphans,
    );
    if (who.kind === 'other') {
      // Another tab's conversation, run under this tab's environment (Codex's shared daemon).
      const owner = this.sessions.get(who.sessionId)!;
      this.logger.info('hook report credited to the tab of its conversation', { named: report.session, session: who.sessionId, event: report.event });
      this.apply(owner, report, details);
      return;
    }
    const origin = hookOrigin(report.parents, t.source.pid, t.agentRunner);
    if (who.kind === 'nobody') {
      if (who.orphan && details.conversationId) this.addOrphan(details.conversationId);
      // A nested agent (a `claude -p` the agent's Bash ran) starts a conversation no tab waits
      // for: say that, the more exact why, rather than only that no tab could be told.
      return this.notApplied(t, report, origin.kind === 'nested' ? describeHookOrigin(origin, t.source.pid) : who.why);
    }
    // A daemon the agent runs hooks from (Codex's app-server, once its first TUI is gone) is
    // outside the tab's processes, and a helper it runs one hook through looks nested (Qwen Code
    // runs StopFailure from a detached node supervisor of its own, so the hook outlives it). Such
    // a report still counts when it carries the session's own secret (checked by the hook server) and
    // the conversation this tab is bound to: the daemon serves several tabs with the first one's
    // environment, so the secret alone could be another tab's, and a nested agent started by a
    // tool has a conversation of its own.
    const ownConversation = origin.kind !== 'agent' && t.conversationId !== null && details.conversationId === t.conversationId;
    if (origin.kind !== 'agent' && !ownConversation) return this.notApplied(t, report, describeHookOrigin(origin, t.source.pid));
    if (origin.kind === 'agent') t.agentRunner = origin.runner;
    this.apply(t, report, details);
  }

  private addOrphan(conversationId: string): void {
    this.orphans.add(conversationId);
    // Oldest first out: a bound on memory, far above the conversations of one host's life.
    if (this.orphans.size > MAX_ORPHAN_CONVERSATIONS) this.orphans.delete(this.orphans.values().next().value!);
  }

  private notApplied(t: Tracked, report: HookReport, why: string): void {
    this.ignoredReports++;
    t.lastIgnored = { event: report.event, why, at: this.now() };
    this.logger.info('hook report not applied', { session: report.session, event: report.event, why });
  }

  /** Applies a report to the tab it belongs to (which may not be the one it names). */
  private apply(t: Tracked, report: HookReport, details: HookDetails): void {
    const sessionId = t.source.id;
    if (report.state === 'working' || report.state === 'attention') t.workReports++;
    this.showedLife(t);
    const at = this.now();
    // The manifest's failure event says where in its payload the error is described.
    const failureKey = t.agent?.hooks?.events.find((e) => e.on === report.event && e.failure !== undefined)?.failure;
    const failure = failureKey !== undefined ? failureOfReport(report, failureKey, at) : undefined;
    this.feed(sessionId, { kind: 'hook', state: report.state, event: report.event, at, failure: failure || undefined });
    if (details.conversationId && details.conversationId !== t.conversationId) {
      const previous = t.conversationId;
      t.conversationId = details.conversationId;
      this.conversationEmitter.fire({
        sessionId,
        conversationId: details.conversationId,
        previous,
        transcriptPath: details.transcriptPath || undefined,
      });
    }
    this.detailsEmitter.fire({ sessionId, report, details });
  }

  private feed(sessionId: string, input: StatusInput): void {
    const t = this.sessions.get(sessionId);
    if (!t) return;
    if (t.engine.apply(input)) this.changeEmitter.fire({ sessionId, status: t.engine.status });
    this.armDeadline(t);
    this.armStall(t);
  }

  private showedLife(t: Tracked): void {
    t.lastLifeAt = this.now();
    if (t.stalledSince !== null) this.setStalled(t, null);
  }

  private setStalled(t: Tracked, since: number | null): void {
    t.stalledSince = since;
    this.stallEmitter.fire({ sessionId: t.source.id, since });
    this.armStall(t);
  }

  /** One timer per working session, at the moment its silence would reach the stall time. */
  private armStall(t: Tracked): void {
    const working = t.engine.status.state === 'working';
    if (!working && t.stalledSince !== null) this.setStalled(t, null);
    if (!working || t.stalledSince !== null) {
      if (t.stallTimer) clearTimeout(t.stallTimer);
      t.stallTimer = null;
      return;
    }
    if (t.stallTimer) return;
    t.stallTimer = setTimeout(
      () => {
        t.stallTimer = null;
        if (!this.sessions.has(t.source.id) || t.engine.status.state !== 'working') return;
        // Output since the timer was set moves the deadline instead of re-arming on every frame.
        if (this.now() - t.lastLifeAt >= this.stallMs) this.setStalled(t, t.lastLifeAt);
        else this.armStall(t);
      },
      Math.max(0, t.lastLifeAt + this.stallMs - this.now()),
    );
    t.stallTimer.unref?.();
  }

  private armDeadline(t: Tracked): void {
    const deadline = t.engine.nextDeadline();
    if (t.deadlineTimer) clearTimeout(t.deadlineTimer);
    t.deadlineTimer = null;
    if (deadline === null) return;
    t.deadlineTimer = setTimeout(
      () => {
        t.deadlineTimer = null;
        this.feed(t.source.id, { kind: 'tick', at: this.now() });
      },
      Math.max(0, deadline - this.now()),
    );
    t.deadlineTimer.unref?.();
  }

  private scheduleSnapshot(t: Tracked): void {
    if (t.screenTimer) return;
    const wait = Math.max(0, t.lastSnapshotAt + SCREEN_SNAPSHOT_INTERVAL_MS - this.now());
    t.screenTimer = setTimeout(() => {
      t.screenTimer = null;
      if (!this.sessions.has(t.source.id)) return;
      t.lastSnapshotAt = this.now();
      this.feed(t.source.id, { kind: 'screen', lines: t.source.screenLines(), at: t.lastSnapshotAt });
    }, wait);
  }

  dispose(): void {
    for (const id of [...this.sessions.keys()]) this.untrack(id);
    this.changeEmitter.dispose();
    this.detailsEmitter.dispose();
    this.conversationEmitter.dispose();
    this.stallEmitter.dispose();
    this.progressEmitter.dispose();
  }
}

/** Input that sends a line: Enter as most programs get it (a CR, or the kitty keyboard protocol's
 *  CSI 13 u) at its end. ESC CR is Shift+Enter's newline, not a line sent. */
function sendsLine(data: string): boolean {
  if (data.endsWith('\x1b[13u') || data.endsWith('\x1b[13;1u')) return true;
  return data.endsWith('\r') && !data.endsWith('\x1b\r');
}
