// Routes what sessions say to the desktop: state changes and terminal notifications pass the
// NotificationPolicy (preferences, coalescing, bursts), with who the user is looking at, and go to
// the sink; what the policy holds back is flushed when it falls due.
import type { SessionInfo } from '../../../protocol/sessionInfo';
import { homedir } from 'node:os';
import type { Logger } from '../../services/log';
import {
  parseAnswerAction,
  waitingFor,
  type NotificationPolicy,
  type NotificationRequest,
  type NotificationSink,
  type SessionContext,
} from '../../services/notifier';
import type { QuestionBook } from '../status/questionBook';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';
import type { SessionNotes } from '../sessions/sessionNotes';
import { folderLabels } from '../../present/sidebarModel';
import type { StatusTracker } from '../status/statusTracker';

/** How long a "finished" notification waits for a failure report that may follow the title's
 *  end of the turn (a hook report is a process start away: tens of ms, more on a busy machine). */
export const DONE_SETTLE_MS = 750;

export interface NotificationRouterOptions {
  policy: NotificationPolicy;
  sink: NotificationSink;
  registry: SessionRegistry;
  tracker: StatusTracker;
  notes: SessionNotes;
  logger: Logger;
  agentName: (agentId: string | null | undefined) => string;
  /** Whether notifications play a sound (read per notification: Settings apply at once). */
  sound: () => boolean;
  /** Told when a notification is clicked (the UI focuses the session). */
  onClick?: ((sessionId: string | null) => void) | undefined;
  /** Waiting questions: an attention notification carries one's choices, and choosing one answers it. */
  questions?: Pick<QuestionBook, 'get' | 'answer'>;
}

export class NotificationRouter {
  /** The session the user is looking at (selected in the focused window), or null. */
  private looking: string | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Last notification handed to the OS, with its timing (benchmarks and tests read it). */
  last: { req: NotificationRequest; stateChangedAt: number; handedAt: number } | null = null;

  constructor(private readonly o: NotificationRouterOptions) {}

  get lookingAt(): string | null {
    return this.looking;
  }

  /** Which session the user is looking at, for notifications and done → idle. */
  setLookingAt(id: string | null): void {
    if (this.looking === id) return;
    if (this.looking) this.o.tracker.setFocus(this.looking, false);
    this.looking = id;
    if (id) this.o.tracker.setFocus(id, true);
    this.o.logger.debug('looking at', { id });
  }

  /** A session's state changed (the registry already has it): notify if the policy says so. */
  stateChanged(id: string, before: SessionRecord['state'], state: SessionRecord['state'], at: number): void {
    // The tracker hands over the details of the report that changed the state (the tool the
    // agent asks to run) just after this, in the same tick, and the question book reads the
    // question in the next turn of the loop: decide once both are in. A turn's end read off the
    // title can come a moment before the agent's failure report (the pty and the hook socket
    // race): "finished" waits DONE_SETTLE_MS and is not said when the session stopped instead.
    const decide = () => {
      const r = this.o.registry.get(id);
      if (!r) return;
      const superseded = state === 'done' && r.state !== 'done';
      const ctx = { ...this.context(id), ...(superseded ? { superseded } : {}) };
      // Said, so a needs-you that was not posted can be told from one that was lost.
      if (ctx.userLooking && state === 'attention' && before !== 'attention')
        this.o.logger.info('notification skipped: the session is in front in the focused window', { session: id });
      const req = this.o.policy.stateChanged(id, before, state, at, ctx);
      if (req) void this.send(req, at);
      this.scheduleFlush();
    };
    if (state === 'done') setTimeout(decide, DONE_SETTLE_MS).unref();
    else setImmediate(decide);
  }

  /** A session of another machine changed state (its host decided it; the hub heard): notified
   *  here under the same policy, naming the machine. */
  remoteStateChanged(s: SessionInfo, before: SessionRecord['state']): void {
    const ctx: SessionContext = {
      agentName: this.o.agentName(s.agentId),
      folderLabel: `${s.machine}:${s.cwd.split('/').filter(Boolean).at(-1) ?? '/'}`,
      detail: s.tool ? waitingFor(s.tool) : undefined,
      failure: s.status?.why.failure ? s.status.why.failure.reason : undefined,
      userLooking: this.looking === s.id,
    };
    const req = this.o.policy.stateChanged(s.id, before, s.state, Date.parse(s.stateSince), ctx);
    if (req) void this.send({ ...req, title: `${req.title} on ${s.machine}` }, Date.now());
    this.scheduleFlush();
  }

  /** A program in the session asked for a notification (OSC 9 / 777). */
  fromTerminal(id: string, title: string, body: string): void {
    const at = Date.now();
    const req = this.o.policy.terminalNotification(id, title, body, at, this.context(id));
    if (req) void this.send(req, at);
  }

  /** `termio notify` from inside a session: always shown (the program asked for it), and a click focuses the session. */
  async fromSession(sessionId: string | null, title: string | undefined, text: string): Promise<void> {
    const r = sessionId ? this.o.registry.get(sessionId) : undefined;
    const ctx = sessionId ? this.context(sessionId) : null;
    const req: NotificationRequest = {
      sessionId,
      kind: 'terminal',
      title: title || (r && ctx ? `${this.o.agentName(r.agentId)} · ${ctx.folderLabel}` : 'Termio'),
      message: text,
    };
    await this.send(req, Date.now());
  }

  /** The session is gone: nothing of it is held back or looked at any more. */
  forget(id: string): void {
    this.o.policy.forget(id);
    if (this.looking === id) this.looking = null;
  }

  dispose(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
  }

  private context(id: string): SessionContext {
    const r = this.o.registry.get(id);
    const labels = folderLabels(r ? [r.cwd] : [], homedir());
    const tool = this.o.notes.toolOf(id);
    const q = this.o.questions?.get(id);
    return {
      agentName: this.o.agentName(r?.agentId),
      folderLabel: r ? (labels.get(r.cwd) ?? r.cwd) : '',
      detail: tool !== undefined ? waitingFor(tool) : undefined,
      question: q && !q.answered ? { id: q.id, fingerprint: q.fingerprint, text: q.text, choices: q.choices.map((c) => c.label) } : undefined,
      failure: r?.failure ? r.failure.reason : undefined,
      userLooking: this.looking === id,
    };
  }

  /** A notification's action was chosen: a question's choice answers it (refused if it changed). */
  private action(req: NotificationRequest, action: string): void {
    const a = parseAnswerAction(action);
    const r = req.sessionId ? this.o.registry.get(req.sessionId) : undefined;
    if (!a || !r || !this.o.questions) return;
    const res = this.o.questions.answer(r, String(a.index + 1), a.questionId, false, 'a notification action');
    if (!res.ok) this.o.logger.info('notification answer not sent', { session: r.id, why: res.message });
  }

  private scheduleFlush(): void {
    const due = this.o.policy.nextFlushAt();
    if (due === null || this.flushTimer) return;
    this.flushTimer = setTimeout(
      () => {
        this.flushTimer = null;
        const req = this.o.policy.flush(Date.now());
        if (req) void this.send(req, Date.now());
        this.scheduleFlush();
      },
      Math.max(0, due - Date.now()),
    );
  }

  private async send(req: NotificationRequest, stateChangedAt: number): Promise<void> {
    await this.o.sink.send(
      req,
      this.o.sound(),
      () => this.o.onClick?.(req.sessionId),
      (action) => this.action(req, action),
    );
    this.last = { req, stateChangedAt, handedAt: Date.now() };
    this.o.logger.info('notification', {
      kind: req.kind,
      session: req.sessionId,
      title: req.title,
      message: req.message,
      ms: this.last.handedAt - stateChangedAt,
    });
  }
}
