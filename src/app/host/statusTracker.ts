// Live status for every session: feeds each session's title changes, screen snapshots
// (throttled), exit, the user's focus and its agent's hook reports into a protocol StatusEngine
// and emits state changes, the details hooks carry (tool, prompt title) and conversation-id
// changes (the agent rotated with /clear or /new: the session rebinds). Only reports from the
// session's own agent count (src/protocol/hookOrigin.ts); a nested agent's are recorded, not applied.
import { describeHookOrigin, hookOrigin } from '../../protocol/hookOrigin';
import type { HookReport } from '../../protocol/hookReport';
import { extractHookDetails, type HookDetails } from '../../protocol/hookReport';
import { hooksReportAtStart, hooksReportOnPrompt, type HooksDeclaration } from '../../protocol/hooks';
import { StatusEngine, type SessionStatus, type StatusInput, type StatusRulesInput } from '../../protocol/status';
import { Emitter, type Disposable, type Event } from '../../protocol/events';
import { nullLogger, type Logger } from './log';

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
  screenLines(opts?: { lines?: number }): string[];
}

/** The status fields of an agent's manifest. */
export interface AgentStatusConfig {
  agentId: string;
  hooks?: Pick<HooksDeclaration, 'dialect' | 'events' | 'conversation' | 'tool' | 'promptTitle'>;
  titleStatus?: StatusRulesInput;
  status?: StatusRulesInput;
  /** The agent reports work as OSC 9;4 progress. */
  progressStatus?: boolean;
}

/** Screen rules look at a snapshot at most this often: a flooding agent repaints hundreds of
 *  times a second, and a state shown 100 ms late is still "at once" to a person. */
export const SCREEN_SNAPSHOT_INTERVAL_MS = 100;

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
  lastIgnored: IgnoredReport | null;
  agent: AgentStatusConfig | null;
  engine: StatusEngine;
  conversationId: string | null;
  subscriptions: Disposable[];
  deadlineTimer: NodeJS.Timeout | null;
  screenTimer: NodeJS.Timeout | null;
  lastSnapshotAt: number;
  /** The percentage of the active OSC 9;4 report, or null. */
  progress: number | null;
}

export interface StatusTrackerOptions {
  now?: () => number;
  logger?: Logger;
}

export class StatusTracker {
  private readonly sessions = new Map<string, Tracked>();
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly changeEmitter = new Emitter<StatusChange>();
  private readonly detailsEmitter = new Emitter<HookDetailsEvent>();
  private readonly conversationEmitter = new Emitter<ConversationChange>();
  private readonly progressEmitter = new Emitter<{ sessionId: string; progress: number | null }>();
  /** A session's OSC 9;4 percentage changed (null: no active report). */
  readonly onProgress = this.progressEmitter.event;
  readonly onStateChange = this.changeEmitter.event;
  readonly onHookDetails = this.detailsEmitter.event;
  readonly onConversation = this.conversationEmitter.event;
  /** Reports for a hosted session whose agent is not the one that reported (e.g. `claude`
   *  typed into a plain shell tab): ignored, counted. */
  ignoredReports = 0;

  constructor(opts: StatusTrackerOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? nullLogger;
  }

  /** Starts tracking a session; `conversationId` is the one it is bound to, if any. */
  track(source: StatusSessionSource, agent: AgentStatusConfig | null, opts: { conversationId?: string } = {}): Disposable {
    this.untrack(source.id);
    const at = this.now();
    const engine = new StatusEngine(
      {
        hooksDeclared: agent?.hooks !== undefined,
        hooksReportAtStart: agent?.hooks ? hooksReportAtStart(agent.hooks) : false,
        hooksReportOnPrompt: agent?.hooks ? hooksReportOnPrompt(agent.hooks) : false,
        ...(agent?.titleStatus ? { titleStatus: agent.titleStatus } : {}),
        ...(agent?.status ? { status: agent.status } : {}),
      },
      at,
    );
    for (const e of engine.ruleErrors) this.logger.warn('status rule skipped', { agent: agent?.agentId, error: e });
    const t: Tracked = {
      source,
      agentRunner: undefined,
      lastIgnored: null,
      agent,
      engine,
      conversationId: opts.conversationId ?? null,
      subscriptions: [],
      deadlineTimer: null,
      screenTimer: null,
      lastSnapshotAt: 0,
      progress: null,
    };
    this.sessions.set(source.id, t);
    const id = source.id;
    t.subscriptions.push(source.onTitle((title) => this.feed(id, { kind: 'title', title, at: this.now() })));
    t.subscriptions.push(source.onExit((e) => this.feed(id, { kind: 'exit', ...e, at: this.now() })));
    if (agent?.status) t.subscriptions.push(source.onRender(() => this.scheduleSnapshot(t)));
    if (agent?.progressStatus && source.onProgress) t.subscriptions.push(source.onProgress((p) => this.handleProgress(t, p)));
    if (source.title) this.feed(id, { kind: 'title', title: source.title, at });
    if (source.exited) this.feed(id, { kind: 'exit', ...source.exited, at });
    this.armDeadline(t);
    return { dispose: () => this.untrack(id) };
  }

  untrack(sessionId: string): void {
    const t = this.sessions.get(sessionId);
    if (!t) return;
    for (const s of t.subscriptions) s.dispose();
    if (t.deadlineTimer) clearTimeout(t.deadlineTimer);
    if (t.screenTimer) clearTimeout(t.screenTimer);
    this.sessions.delete(sessionId);
  }

  isTracked(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  status(sessionId: string): SessionStatus | undefined {
    return this.sessions.get(sessionId)?.engine.status;
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

  /** The pid of a tracked session's agent. */
  agentPid(sessionId: string): number | undefined {
    return this.sessions.get(sessionId)?.source.pid;
  }

  /** The last report that named this session but was not applied (a nested agent's), if any. */
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
    const origin = hookOrigin(report.parents, t.source.pid, t.agentRunner);
    if (origin.kind !== 'agent') {
      this.ignoredReports++;
      t.lastIgnored = { event: report.event, why: describeHookOrigin(origin, t.source.pid), at: this.now() };
      this.logger.info('hook report not applied', { session: report.session, event: report.event, why: t.lastIgnored.why });
      return;
    }
    t.agentRunner = origin.runner;
    const hooks = t.agent.hooks;
    const details = extractHookDetails(report, {
      dialect: hooks.dialect,
      ...(hooks.conversation ? { conversationKey: hooks.conversation } : {}),
      ...(hooks.tool ? { toolKey: hooks.tool } : {}),
      ...(hooks.promptTitle ? { promptKey: hooks.promptTitle } : {}),
    });
    this.feed(report.session, { kind: 'hook', state: report.state, event: report.event, at: this.now() });
    if (details.conversationId && details.conversationId !== t.conversationId) {
      const previous = t.conversationId;
      t.conversationId = details.conversationId;
      this.conversationEmitter.fire({
        sessionId: report.session,
        conversationId: details.conversationId,
        previous,
        ...(details.transcriptPath ? { transcriptPath: details.transcriptPath } : {}),
      });
    }
    this.detailsEmitter.fire({ sessionId: report.session, report, details });
  }

  private feed(sessionId: string, input: StatusInput): void {
    const t = this.sessions.get(sessionId);
    if (!t) return;
    if (t.engine.apply(input)) this.changeEmitter.fire({ sessionId, status: t.engine.status });
    this.armDeadline(t);
  }

  private armDeadline(t: Tracked): void {
    const deadline = t.engine.nextDeadline();
    if (t.deadlineTimer) clearTimeout(t.deadlineTimer);
    t.deadlineTimer = null;
    if (deadline === null) return;
    t.deadlineTimer = setTimeout(() => {
      t.deadlineTimer = null;
      this.feed(t.source.id, { kind: 'tick', at: this.now() });
    }, Math.max(0, deadline - this.now()));
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
    this.progressEmitter.dispose();
  }
}
