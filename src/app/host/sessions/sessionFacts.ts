// The one mapper from a session record to the SessionInfo every client receives (the app, the
// termio command on either socket, `sessions watch`). The facts live in several services; those
// that exist only once the host is fully up (the state store, the host socket server's views, the set of
// sessions recovered after a lost host) are plugged in as they start, and read as absent before.
import type { SessionWorktree } from '../../../protocol/controlWorktrees';
import type { FailureInfo, SessionInfo, SessionStatusInfo } from '../../../protocol/sessionInfo';
import type { SessionStatus, StatusFailure } from '../../../protocol/status/sessionState';
import type { SessionNotes } from './sessionNotes';
import type { SessionRecord } from './sessionRegistry';

/** What the facts read of live status: the status tracker (status/statusTracker.ts), passed in, so
 *  this room below it never imports it. */
export interface StatusReader {
  status(sessionId: string): SessionStatus | undefined;
  progressOf(sessionId: string): number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The engine's status on the wire: the same fields, ISO times. */
export function statusInfo(st: SessionStatus): SessionStatusInfo {
  return {
    state: st.state,
    since: iso(st.since),
    why: {
      channel: st.why.channel,
      rule: st.why.rule,
      event: st.why.event,
      at: iso(st.why.at),
      failure: st.why.failure ? failureInfo(st.why.failure) : undefined,
    },
    health: st.health.map((h) => ({ code: h.code, message: h.message, since: iso(h.since) })),
  };
}

/** A failure on the wire: the same fields, an ISO time. */
export function failureInfo(f: StatusFailure): FailureInfo {
  return { kind: f.kind, reason: f.reason, resetsAt: f.resetsAt !== undefined ? iso(f.resetsAt) : undefined };
}

export class SessionFacts {
  /** The window whose tab a session is (from the state store, once it is loaded). */
  windowOf: (id: string) => string | null = () => null;
  /** Views attached to a session now (from the host socket server, once it listens). */
  viewsOf: (id: string) => number = () => 0;
  /** What a session asks while it needs you (from the question book, once the host is up). */
  questionOf: (id: string) => SessionInfo['question'] = () => null;
  /** Sessions this host relaunched because the host before it was lost. */
  recovered: ReadonlySet<string> = new Set();
  /** The git worktree a session works in (from the worktree service, once it is up). */
  worktreeOf: (id: string) => SessionWorktree | undefined = () => undefined;

  /** A bare server (tests, benches) has no tracker or notes: no status, tool or progress then. */
  constructor(
    private readonly tracker?: StatusReader,
    private readonly notes?: SessionNotes,
  ) {}

  info(r: SessionRecord): SessionInfo {
    const s = r.session;
    const st = this.tracker?.status(r.id);
    const worktree = this.worktreeOf(r.id);
    return {
      id: r.id,
      agentId: r.agentId,
      cwd: r.cwd,
      title: r.title,
      state: r.state,
      stateWhy: r.stateWhy,
      stateSince: iso(r.stateSince),
      waitingSince: r.waitingSince === null ? null : iso(r.waitingSince),
      createdAt: iso(r.createdAt),
      pid: s.pid,
      argv: s.argv,
      cols: s.cols,
      rows: s.rows,
      exited: s.exited ? { exitCode: s.exited.exitCode, signal: s.exited.signal } : null,
      parentId: r.parentId,
      stalledSince: r.stalledSince === null ? null : iso(r.stalledSince),
      bypass: r.bypass,
      windowId: this.windowOf(r.id),
      views: this.viewsOf(r.id),
      tool: this.notes?.toolOf(r.id) ?? null,
      progress: this.tracker?.progressOf(r.id) ?? null,
      status: st ? statusInfo(st) : null,
      recovered: this.recovered.has(r.id),
      machine: null,
      question: this.questionOf(r.id),
      worktree: worktree || undefined,
    };
  }
}
