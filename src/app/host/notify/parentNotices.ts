// A parent woken when its children finish (`sessions spawn --notify-parent`): when a child
// started with it is done, fails, needs a person, or its program ends, the parent session is told
// in one line typed into its prompt, the way a spawn's first prompt is typed (SessionWaits), and
// only while the parent waits for input: never into a running turn, never over a question it asks
// itself. Meanwhile notices wait in order, one per child (a later state replaces an earlier one).
// Kept in memory only: a parent that ends drops what was queued for it (logged).
import type { ChildNotice, ChildNoticeKind } from '../../../protocol/control';
import { Emitter, type Disposable } from '../../../protocol/events';
import { failureFromExit } from '../../../protocol/status/failureReason';
import type { Logger } from '../../services/log';
import type { SessionRecord, SessionRegistry, StateChange } from '../sessions/sessionRegistry';
import type { SessionWaits } from '../sessions/sessionWaits';
import type { QuestionBook } from '../status/questionBook';

/** How long a notice of a child that needs an answer waits for its question to be read. */
const QUESTION_WAIT_MS = 2_000;

/** A notice's quoted line (the child's last words, a question) is cut to this many characters. */
const MAX_QUOTE_CHARS = 160;
/** After a notice is typed, the next waits until the turn it started has ended, or this long: a
 *  parent still working then is not typed into anyway (its state is looked at first), and one
 *  whose status never moved (it showed no work on the notice) must not hold the rest back. */
const TURN_WAIT_MS = 60_000;

export interface ParentNoticesOptions {
  registry: SessionRegistry;
  waits: Pick<SessionWaits, 'deliverPrompt' | 'wait'>;
  logger: Logger;
  /** The sessions' questions (absent: notices quote the screen's last words). */
  questions?: () => Pick<QuestionBook, 'peek' | 'onQuestion'> | undefined;
  now?: () => number;
}

/** What `sessions why` shows of a session's notices. */
export interface NoticeFacts {
  /** The child tells that parent when it finishes. */
  tellsParent?: string;
  /** As a parent: the notice it was last told, and those waiting for it to be idle. */
  told?: ChildNotice;
  queued?: ChildNotice[];
}

export class ParentNotices implements Disposable {
  /** child id → the parent it tells, and its exit subscription. */
  private readonly tells = new Map<string, { parent: string; exit: Disposable }>();
  /** Children whose latest notice said they are done, with no work since: their exit is no news. */
  private readonly settled = new Set<string>();
  /** parent id → its waiting notices by child, oldest first. */
  private readonly queues = new Map<string, Map<string, ChildNotice>>();
  private readonly told = new Map<string, ChildNotice>();
  /** Parents being typed into (or whose told turn has not ended yet). */
  private readonly busy = new Set<string>();
  private readonly noticed = new Emitter<ChildNotice>();
  private readonly subs: Disposable[] = [];
  private readonly now: () => number;
  /** A child finished and its parent was given (or will be given) a notice. */
  readonly onNotice = this.noticed.event;

  constructor(private readonly opts: ParentNoticesOptions) {
    this.now = opts.now ?? Date.now;
    const { registry } = opts;
    this.subs.push(
      registry.onStateChanged((c) => {
        this.childChanged(c);
        this.deliver(c.record.id);
      }),
      registry.onRemoved((r) => this.removed(r)),
    );
  }

  /** The child tells the parent when it finishes (from now on). */
  watch(child: SessionRecord, parentId: string): void {
    const exit = child.session.onExit((status) => {
      const record = this.opts.registry.get(child.id);
      if (!record || !this.tells.has(child.id) || this.settled.has(child.id)) return;
      const lines = record.session.screenLines({ lines: record.session.rows });
      this.queue(record, 'exited', failureFromExit(status.exitCode, status.signal, lastWords(lines)).reason);
    });
    this.tells.set(child.id, { parent: parentId, exit });
  }

  facts(id: string): NoticeFacts {
    const tellsParent = this.tells.get(id)?.parent;
    const told = this.told.get(id);
    const queued = [...(this.queues.get(id)?.values() ?? [])];
    return { tellsParent: tellsParent || undefined, told: told || undefined, queued: queued.length ? queued : undefined };
  }

  private childChanged(c: StateChange): void {
    const r = c.record;
    if (!this.tells.has(r.id)) return;
    if (r.state === 'working') this.settled.delete(r.id);
    // The program's end is told by its exit (with its code), not by the state it leads to.
    if (r.session.exited) return;
    if (r.state === 'attention') {
      if (r.failure) this.queue(r, 'failed', r.failure.reason);
      else void this.asks(r);
    } else if ((r.state === 'done' || r.state === 'idle') && (c.previous === 'working' || c.previous === 'attention')) {
      this.settled.add(r.id);
      this.queue(r, 'done', lastWords(r.session.screenLines({ lines: r.session.rows })) ?? '');
    }
  }

  /** A child that needs an answer: told with its question, once what it wrote with it is on the
   *  screen (the state can come a moment before the question is drawn or read). */
  private async asks(child: SessionRecord): Promise<void> {
    await child.session.whenParsed();
    const question = await this.questionSoon(child);
    if (child.state !== 'attention' || child.failure || child.session.exited || !this.tells.has(child.id)) return;
    const screen = child.session.screenLines({ lines: child.session.rows });
    this.queue(child, 'needsYou', question ?? lastWords(screen) ?? '');
  }

  /** The child's question once it is read: the state can come before the question is drawn. At
   *  most QUESTION_WAIT_MS, then none (the notice quotes the screen's last words instead). */
  private questionSoon(child: SessionRecord): Promise<string | undefined> {
    const book = this.opts.questions?.();
    const now = book?.peek(child.id)?.text;
    if (!book || now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (q: string | undefined) => {
        clearTimeout(cap);
        sub.dispose();
        resolve(q);
      };
      // The book tells when the child's question is read, or goes (the child stopped asking).
      const sub = book.onQuestion((c) => {
        if (c.sessionId === child.id && (c.question || child.state !== 'attention')) done(c.question?.text);
      });
      const cap = setTimeout(() => done(book.peek(child.id)?.text), QUESTION_WAIT_MS);
    });
  }

  private queue(child: SessionRecord, kind: ChildNoticeKind, detail: string): void {
    const parent = this.tells.get(child.id)!.parent;
    const notice: ChildNotice = { child: child.id, parent, kind, text: noticeText(child, kind, detail), at: new Date(this.now()).toISOString() };
    const queue = this.queues.get(parent) ?? new Map<string, ChildNotice>();
    // Only the child's latest state waits, in the order the children reached theirs.
    queue.delete(child.id);
    queue.set(child.id, notice);
    this.queues.set(parent, queue);
    this.opts.logger.info('notices: a child finished; its parent is told once it waits for input', { child: child.id, parent, kind });
    this.noticed.fire(notice);
    this.deliver(parent);
  }

  /** Types the oldest waiting notice into the parent if it waits for input now. */
  private deliver(parent: string): void {
    const queue = this.queues.get(parent);
    if (!queue?.size || this.busy.has(parent)) return;
    const r = this.opts.registry.get(parent);
    if (!r || r.session.exited) return this.drop(parent, r ? 'its program ended' : 'was closed');
    if (r.state !== 'idle' && r.state !== 'done') return;
    const [child, notice] = queue.entries().next().value!;
    queue.delete(child);
    this.busy.add(parent);
    // A notice not taken waits for the parent's next change of state (or the next notice), not
    // for a retry at once: a parent that never shows typed text would be typed into again and again.
    void this.type(parent, notice).then((taken) => {
      this.busy.delete(parent);
      if (taken) this.deliver(parent);
    });
  }

  /** Types one notice; false when the parent did not take it (it is queued again). */
  private async type(parent: string, notice: ChildNotice): Promise<boolean> {
    const { waits, logger, registry } = this.opts;
    const typed = await waits.deliverPrompt(parent, notice.text).catch(() => false);
    if (!typed) {
      // Not taken (it went to work, or asks something, until the prompt gave up): it waits again,
      // unless the child has news since.
      const queue = this.queues.get(parent);
      if (queue && !queue.has(notice.child)) this.queues.set(parent, new Map([[notice.child, notice], ...queue]));
      logger.warn('notices: the parent did not take the notice; it waits for the parent to be ready again', { parent, child: notice.child });
      return false;
    }
    this.told.set(parent, notice);
    logger.info('notices: parent told', { parent, child: notice.child, kind: notice.kind });
    // The next notice waits for the turn this one started to end.
    if (registry.get(parent)) await waits.wait(parent, 'turn', TURN_WAIT_MS);
    return true;
  }

  private drop(parent: string, why: string): void {
    const queue = this.queues.get(parent);
    this.queues.delete(parent);
    if (queue?.size) this.opts.logger.warn(`notices: dropped, the parent ${why}`, { parent, children: [...queue.keys()] });
  }

  private removed(r: SessionRecord): void {
    this.tells.get(r.id)?.exit.dispose();
    this.tells.delete(r.id);
    this.settled.delete(r.id);
    this.told.delete(r.id);
    if (!this.busy.has(r.id)) this.drop(r.id, 'was closed');
  }

  dispose(): void {
    for (const d of this.subs.splice(0)) d.dispose();
    for (const t of this.tells.values()) t.exit.dispose();
    this.tells.clear();
    this.noticed.dispose();
  }
}

/** The line typed into the parent: who the child is, what became of it (in its own words, quoted),
 *  and the command that shows more. */
export function noticeText(child: SessionRecord, kind: ChildNoticeKind, detail: string): string {
  const name = oneLine(child.title, MAX_QUOTE_CHARS);
  const who = `child ${name ? `"${name}" ` : ''}(${child.id}, ${child.agentId ?? 'shell'})`;
  const said = oneLine(detail, MAX_QUOTE_CHARS);
  const status = { done: 'is done; its last line', failed: 'failed', needsYou: 'needs an answer', exited: 'ended' }[kind];
  const next = kind === 'needsYou' ? `See the question with: termio sessions question ${child.id}` : `Read it with: termio sessions read ${child.id}`;
  return `[termio] ${who} ${said ? `${status}: "${said}"` : status.replace(/;.*/, '')}. ${next}`;
}

/** The last screen line with a letter or digit in it: a bare prompt or a box's border says nothing. */
function lastWords(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (/[\p{L}\p{N}]/u.test(l)) return l;
  }
  return undefined;
}

/** Control characters and runs of spaces become one space (a newline would press Return); cut to max. */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
