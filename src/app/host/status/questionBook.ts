// The question each session that needs you asks, read once in the host for every client (the
// phone page, notifications, the CLI, the tray): from the hook report that put it in attention
// and from its screen, re-read as the screen changes while it waits. Answering sends the chosen
// option's keys to the session, and is refused when the question is no longer the one the asker
// read. An answer is then watched until the agent takes it: a TUI may drop keys (Claude Code
// refuses keys for a moment after its menu appears or after its event loop stalled), so while the
// same question is still asked the keys are sent again, and after the last try it is open again.
import { Emitter, type Disposable } from '../../../protocol/events';
import type { HookReport } from '../../../protocol/hookReport';
import { findChoice, mergeQuestions, questionFromHook, questionFromScreen, type Question, type QuestionTui } from '../../../protocol/questions';
import type { Logger } from '../../services/log';
import type { SessionRecord, SessionRegistry, StateChange } from '../sessions/sessionRegistry';

/** A waiting session's screen is re-read at most this often: a spinner repaints many times a
 *  second, and a question that changed is shown 100 ms later, which is still at once. */
export const QUESTION_REREAD_MS = 100;

/** How long after its keys an answer is checked: the question still asked then was not taken. */
export const ANSWER_CHECK_MS = 1500;
/** How many times an answer's keys are sent before the question is given back to the user. */
export const ANSWER_TRIES = 4;

export interface SessionQuestion extends Question {
  /** Changes whenever the question does (a new fingerprint, or the same question asked again). */
  id: string;
  sessionId: string;
  askedAt: number;
  /** The choice already sent, and when; null until then. */
  answered: { label: string; at: number } | null;
}

export type AnswerResult =
  | { ok: true; question: SessionQuestion; choice: string; keys: string[] }
  | {
      ok: false;
      code: 'noQuestion' | 'questionChanged' | 'noSuchChoice' | 'alreadyAnswered' | 'sessionExited';
      message: string;
      question: SessionQuestion | null;
    };

export interface QuestionBookDeps {
  registry: Pick<SessionRegistry, 'get' | 'list' | 'onRemoved'> & { onStateChanged: SessionRegistry['onStateChanged'] };
  /** The hook reports the tracker applied (the attention one carries the payload). */
  onHookReport: (listener: (e: { sessionId: string; report: HookReport }) => void) => Disposable;
  tuiOf(agentId: string | null): QuestionTui;
  logger: Logger;
  now?: () => number;
}

interface Watch {
  hook: Question | null;
  current: SessionQuestion | null;
  render: Disposable | null;
  timer: NodeJS.Timeout | null;
  /** An answer sent and not yet seen taken: the question it answered, its choice, the sends so far. */
  sent: { fingerprint: string; label: string; tries: number; timer: NodeJS.Timeout } | null;
}

export class QuestionBook implements Disposable {
  private readonly watches = new Map<string, Watch>();
  /** The question id `read` last gave per session: what an answer without one refers to. */
  private readonly lastRead = new Map<string, string>();
  private readonly changed = new Emitter<{ sessionId: string; question: SessionQuestion | null }>();
  private readonly subscriptions: Disposable[] = [];
  private serial = 0;
  private readonly now: () => number;
  /** A session's question appeared, changed, was answered, or went (null). */
  readonly onQuestion = this.changed.event;

  constructor(private readonly deps: QuestionBookDeps) {
    this.now = deps.now ?? Date.now;
    this.subscriptions.push(
      deps.registry.onStateChanged((c) => this.stateChanged(c)),
      deps.registry.onRemoved((r) => this.stop(r.id, false)),
      deps.onHookReport(({ sessionId, report }) => this.hookReport(sessionId, report)),
    );
  }

  get(sessionId: string): SessionQuestion | null {
    return this.watches.get(sessionId)?.current ?? null;
  }

  /** The question, remembered as read: an answer that names none is checked against it. */
  read(sessionId: string): SessionQuestion | null {
    const q = this.reread(sessionId) ?? this.get(sessionId);
    if (q) this.lastRead.set(sessionId, q.id);
    return q;
  }

  /** The question as it is now, read afresh from the hook and the screen, without remembering it
   *  as read (the host's own use, e.g. a parent's notice, is no one's reading of it). */
  peek(sessionId: string): SessionQuestion | null {
    return this.reread(sessionId) ?? this.get(sessionId);
  }

  /** The id `read` last gave for the session, or null. */
  lastReadId(sessionId: string): string | null {
    return this.lastRead.get(sessionId) ?? null;
  }

  /** Every waiting question, in the registry's order. */
  list(): SessionQuestion[] {
    return this.deps.registry.list().flatMap((r) => this.get(r.id) ?? []);
  }

  private stateChanged(c: StateChange): void {
    const id = c.record.id;
    if (c.record.state !== 'attention') return this.stop(id, true);
    const w = this.watch(id);
    // The hook report that caused this change is handed over just after it, in the same tick:
    // read once it is in, so the question is not announced twice.
    setImmediate(() => this.reread(id));
    if (!w.render) w.render = c.record.session.onRender(() => this.schedule(id));
  }

  private hookReport(sessionId: string, report: HookReport): void {
    if (report.state !== 'attention') return;
    const r = this.deps.registry.get(sessionId);
    if (!r) return;
    this.watch(sessionId).hook = questionFromHook(report.payload, this.deps.tuiOf(r.agentId));
    if (r.state === 'attention') this.schedule(sessionId);
  }

  private watch(id: string): Watch {
    let w = this.watches.get(id);
    if (!w) this.watches.set(id, (w = { hook: null, current: null, render: null, timer: null, sent: null }));
    return w;
  }

  private schedule(id: string): void {
    const w = this.watches.get(id);
    if (!w || w.timer) return;
    w.timer = setTimeout(() => {
      w.timer = null;
      this.reread(id);
    }, QUESTION_REREAD_MS);
  }

  /** Reads the question again; announces it when it changed. */
  private reread(id: string): SessionQuestion | null {
    const w = this.watches.get(id);
    const r = this.deps.registry.get(id);
    if (!w || !r || r.state !== 'attention') return null;
    const onScreen = questionFromScreen(r.session.screenLines(), this.deps.tuiOf(r.agentId));
    const q = mergeQuestions(w.hook, onScreen);
    if (w.sent && (!onScreen || q?.fingerprint !== w.sent.fingerprint)) {
      // The answered question left the screen: taken. (The same one asked again later is a new question.)
      clearTimeout(w.sent.timer);
      w.sent = null;
    }
    const prev = w.current;
    if (q && prev && q.fingerprint === prev.fingerprint) {
      // The same question; only the highlight may have moved.
      w.current = { ...prev, choices: q.choices };
      return w.current;
    }
    if (!q && !prev) return null;
    w.current = q ? { ...q, id: `${q.fingerprint}.${++this.serial}`, sessionId: id, askedAt: this.now(), answered: null } : null;
    this.deps.logger.debug('question', { session: id, text: w.current?.text ?? null });
    this.changed.fire({ sessionId: id, question: w.current });
    return w.current;
  }

  /** Stops re-reading a session's question; `announce` false: the session is gone. */
  private stop(id: string, announce: boolean): void {
    // What was read is kept while the session lives: an answer to a question gone since is refused as such.
    if (!announce) this.lastRead.delete(id);
    const w = this.watches.get(id);
    if (!w) return;
    w.render?.dispose();
    if (w.timer) clearTimeout(w.timer);
    if (w.sent) clearTimeout(w.sent.timer);
    this.watches.delete(id);
    if (announce && w.current) this.changed.fire({ sessionId: id, question: null });
  }

  /**
   * Sends the keys of `choice` (a number, a label or a key; see findChoice) to the session.
   * `questionId` is the question the asker read: when another one is asked now, nothing is sent
   * (unless `force`), and the answer carries the current question.
   */
  answer(record: SessionRecord, choice: string, questionId: string | null, force = false, by = 'the app'): AnswerResult {
    if (record.session.exited) return { ok: false, code: 'sessionExited', message: `session ${record.id} has exited`, question: null };
    const current = this.reread(record.id) ?? this.get(record.id);
    if (!current) return { ok: false, code: 'noQuestion', message: `session ${record.id} asks no question now`, question: null };
    if (!force && questionId !== current.id) {
      const message =
        questionId === null
          ? `read the question first (termio sessions question ${record.id}), or --force`
          : `the question changed since it was read: now “${current.text}”`;
      return { ok: false, code: 'questionChanged', message, question: current };
    }
    if (!force && current.answered) return { ok: false, code: 'alreadyAnswered', message: `already answered “${current.answered.label}”`, question: current };
    const c = findChoice(current, choice);
    if (!c)
      return {
        ok: false,
        code: 'noSuchChoice',
        message: `no choice ${JSON.stringify(choice)}: the choices are ${current.choices.map((x, i) => `${i + 1}. ${x.label}`).join(', ')}`,
        question: current,
      };
    for (const key of c.keys) record.session.sendKey({ key });
    const answered: SessionQuestion = { ...current, answered: { label: c.label, at: this.now() } };
    const w = this.watch(record.id);
    w.current = answered;
    if (w.sent) clearTimeout(w.sent.timer);
    w.sent = null;
    // Only a question read on the screen can be seen taken: one only a hook told of is sent once.
    if (current.source !== 'hook')
      w.sent = { fingerprint: current.fingerprint, label: c.label, tries: 1, timer: setTimeout(() => this.checkTaken(record.id), ANSWER_CHECK_MS) };
    this.deps.logger.info('question answered', { session: record.id, choice: c.label, keys: c.keys.join(' '), by });
    this.changed.fire({ sessionId: record.id, question: answered });
    return { ok: true, question: answered, choice: c.label, keys: c.keys };
  }

  /**
   * An answer's check: when the question it answered is still asked, the agent did not take the
   * keys. They are sent again, read afresh from the screen (an arrow that did land moved the
   * highlight); after ANSWER_TRIES sends the question is open again, for the user to answer.
   */
  private checkTaken(id: string): void {
    const w = this.watches.get(id);
    const sent = w?.sent;
    const r = this.deps.registry.get(id);
    if (!w || !sent || !r) return;
    w.sent = null;
    const now = r.session.exited || r.state !== 'attention' ? null : this.reread(id);
    if (!now || now.source === 'hook' || now.fingerprint !== sent.fingerprint) return; // taken: it left the screen
    const c = findChoice(now, sent.label);
    if (c && sent.tries < ANSWER_TRIES) {
      this.deps.logger.warn('question: the agent did not take the answer; sending it again', { session: id, choice: c.label, try: sent.tries + 1 });
      for (const key of c.keys) r.session.sendKey({ key });
      w.sent = { ...sent, tries: sent.tries + 1, timer: setTimeout(() => this.checkTaken(id), ANSWER_CHECK_MS) };
      return;
    }
    this.deps.logger.warn('question: the agent did not take the answer; the question is open again', { session: id, choice: sent.label, tries: sent.tries });
    w.current = { ...now, id: `${now.fingerprint}.${++this.serial}`, askedAt: this.now(), answered: null };
    this.changed.fire({ sessionId: id, question: w.current });
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    for (const id of [...this.watches.keys()]) this.stop(id, false);
    this.changed.dispose();
  }
}
