// Waiting on sessions for the control socket: until a state, the program's exit, the end of the
// turn an input started, or readiness for input; and typing a spawn's first prompt once the agent
// is ready for it, never into a half-drawn screen. Event driven: a wait wakes on the registry's
// and the session's own events, so a script learns of a change as soon as the host does.
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { WaitOutcome, WaitResult, WaitUntil } from '../../../protocol/control';
import { Emitter, type Disposable } from '../../../protocol/events';
import type { Session } from '../../../terminal/node';
import type { SessionRecord, SessionRegistry } from './sessionRegistry';
import { defaultTypingLimits, repasteUnshown, typeText, type Typed } from './typeInput';

export interface WaitLimits {
  /** A program with no status channel counts as ready once its output has been quiet this long:
   *  a shell or REPL draws its prompt in one burst, and 300 ms is well past a burst's gaps. */
  quietMs: number;
  /** Once its status channel says it is ready, a program's output must still be this quiet: the
   *  channel can speak a moment before the screen is drawn (a title set first thing at start). */
  settleMs: number;
  /** An agent with status channels that never said it is ready (hooks not installed, no title yet)
   *  counts as ready once its screen shows something and has been still this long: a TUI still
   *  loading redraws sooner. */
  quietWithChannelsMs: number;
  /** Hook reports reach the tracker without any screen event: readiness is looked at this often too. */
  readyCheckMs: number;
  /** A spawn's first prompt is dropped (notReady) if the agent is not ready this long after start:
   *  a cold start of a Node CLI on a loaded machine takes seconds, never a minute. */
  readyTimeoutMs: number;
  /** Without bracketed paste, Return is pressed once the echo settled, or after this long with no echo (see ControlLimits.enterFallbackMs). */
  enterFallbackMs: number;
}

export const defaultWaitLimits: WaitLimits = {
  quietMs: 300,
  settleMs: 150,
  quietWithChannelsMs: 3_000,
  readyCheckMs: 100,
  readyTimeoutMs: 60_000,
  enterFallbackMs: 100,
};

export interface SessionWaitsOptions {
  registry: SessionRegistry;
  /** A session as the control protocol shows it (the control server's sessionInfo). */
  describe: (r: SessionRecord) => SessionInfo;
  /**
   * Whether the session's own status channel (hook, title or screen rule) has said it waits for
   * input; undefined when its agent has no status channel at all. Default: always undefined.
   */
  readyEvidence?: (id: string) => boolean | undefined;
  /**
   * Whether the session's agent reports each prompt through a hook that is reporting: a turn's
   * work then counts only once a hook said so (a title spinner may be the agent still starting,
   * with the prompt queued). Default: never.
   */
  promptHook?: (id: string) => boolean;
  /** How many working (or attention) hook reports the session's agent has made so far. Default: none. */
  hookWork?: (id: string) => number;
  limits?: Partial<WaitLimits>;
}

/** What happened to the input the control socket last typed into a session. */
interface Turn {
  /** A spawn's first prompt, not typed yet (the agent is not ready). */
  pendingPrompt: boolean;
  /** The prompt was dropped: the agent never became ready. */
  notReady: boolean;
  /** The session worked (or asked for the user) since the input. */
  workSeen: boolean;
  /** hookWork when the input was typed; -1 when a hook said the session was working already. */
  hookBase: number;
}

export class SessionWaits implements Disposable {
  private readonly registry: SessionRegistry;
  private readonly describe: (r: SessionRecord) => SessionInfo;
  private readonly readyEvidence: (id: string) => boolean | undefined;
  private readonly promptHook: (id: string) => boolean;
  private readonly hookWork: (id: string) => number;
  readonly limits: WaitLimits;
  private readonly turns = new Map<string, Turn>();
  /** When each session last drew something (for readiness by quiet output). */
  private readonly lastOutput = new Map<string, { at: number; sub: Disposable }>();
  /** Fired when a turn record changes (a prompt typed or dropped): waits on 'turn' look again. */
  private readonly turnChanged = new Emitter<string>();
  private readonly subs: Disposable[] = [];
  private waiting = 0;
  /** Each wait in progress: how to end it now, and its answer. */
  private readonly inProgress = new Map<(outcome: WaitOutcome) => void, Promise<WaitResult> | null>();

  constructor(opts: SessionWaitsOptions) {
    this.registry = opts.registry;
    this.describe = opts.describe;
    this.readyEvidence = opts.readyEvidence ?? (() => undefined);
    this.promptHook = opts.promptHook ?? (() => false);
    this.hookWork = opts.hookWork ?? (() => 0);
    this.limits = { ...defaultWaitLimits, ...opts.limits };
    const track = (r: SessionRecord) => {
      const entry = { at: 0, sub: r.session.onRender(() => (entry.at = performance.now())) };
      this.lastOutput.set(r.id, entry);
    };
    for (const r of this.registry.list()) track(r);
    this.subs.push(
      this.registry.onAdded(track),
      this.registry.onRemoved((r) => {
        this.lastOutput.get(r.id)?.sub.dispose();
        this.lastOutput.delete(r.id);
        this.turns.delete(r.id);
      }),
      this.registry.onStateChanged((c) => {
        const t = this.turns.get(c.record.id);
        if (t && !t.pendingPrompt && (c.record.state === 'working' || c.record.state === 'attention')) t.workSeen = true;
      }),
    );
  }

  /** Waits in progress (benchmarks and tests wait for a waiter to be in place). */
  get pending(): number {
    return this.waiting;
  }

  /** Input is about to be typed into the session: a 'turn' wait now waits for the work it starts. */
  noteInput(id: string): void {
    const r = this.registry.get(id);
    // Sent while the agent works: that work is the turn (it reads the input when it is done).
    const working = r?.state === 'working';
    this.turns.set(id, {
      pendingPrompt: false,
      notReady: false,
      workSeen: working,
      hookBase: working && r.stateWhy.startsWith('hooks') ? -1 : this.hookWork(id),
    });
    this.turnChanged.fire(id);
  }

  /** Types the text (a bracketed paste when the program asked for one) and presses Return as its
   *  own key once the echo settled: TUIs read "text\r" arriving in one burst as a paste. A paste
   *  waits for its echo up to `pasteEchoMs` (TypingLimits' default when omitted). A session that
   *  exited meanwhile counts as typed (nothing is left to refuse it). */
  async typeAndEnter(s: Session, text: string, enter: boolean, pasteEchoMs?: number, beforeEnter?: () => Promise<void>): Promise<Typed> {
    const limits = { plainEchoMs: this.limits.enterFallbackMs, pasteEchoMs: pasteEchoMs ?? defaultTypingLimits.pasteEchoMs };
    const typed = await typeText(s, text, enter, { limits, alive: () => this.registry.get(s.id) !== undefined, beforeEnter: beforeEnter || undefined });
    return s.exited !== null ? { ...typed, taken: true, unechoed: false } : typed;
  }

  /**
   * Types a prompt (a spawn's first, or review comments) once the agent is ready for input,
   * waiting up to `readyWithinMs` (default readyTimeoutMs). A 'turn' wait started meanwhile waits
   * for the prompt's turn; if the agent never gets ready, or never shows the prompt it was pasted
   * (so Return was not pressed), it ends as notReady.
   */
  async deliverPrompt(id: string, prompt: string, readyWithinMs = this.limits.readyTimeoutMs): Promise<boolean> {
    this.turns.set(id, { pendingPrompt: true, notReady: false, workSeen: false, hookBase: 0 });
    const deadline = performance.now() + readyWithinMs;
    let ready = await this.wait(id, 'ready', readyWithinMs);
    // A dialog before the prompt (Codex's notice for a folder not trusted) is attention: the
    // prompt waits for the user to answer it rather than being dropped.
    while (ready.outcome === 'attention' && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.limits.readyCheckMs));
      ready = await this.wait(id, 'ready', Math.max(0, deadline - performance.now()));
    }
    const r = this.registry.get(id);
    if (ready.outcome === 'settled' && r && !r.session.exited) {
      this.noteInput(id);
      // No request waits on this paste (spawn has answered), so its echo may take as long as
      // readiness still could: a CLI just started on a loaded machine may read nothing for seconds.
      // An agent that went to work after it looked ready is still starting (Codex, once its
      // folder notice is answered, sets a spinner title while it finishes starting) and drops a
      // Return meanwhile, leaving the prompt unsent: Return waits until it is ready again.
      // A paste the TUI dropped while it started (its composer redrawn empty) is pasted again.
      const settled = async () => {
        if (this.registry.get(id)?.state === 'working') await this.wait(id, 'ready', Math.max(0, deadline - performance.now()));
        await repasteUnshown(r.session, prompt, deadline);
      };
      const typed = await this.typeAndEnter(r.session, prompt, true, Math.max(defaultTypingLimits.pasteEchoMs, deadline - performance.now()), settled);
      if (typed.taken && !typed.unechoed) return true;
    }
    if (this.turns.has(id)) this.turns.set(id, { pendingPrompt: false, notReady: true, workSeen: false, hookBase: 0 });
    this.turnChanged.fire(id);
    return false;
  }

  /** Waits until the session reaches `until`, needs the user, is closed, or the time is up. */
  wait(id: string, until: WaitUntil, timeoutMs: number, opts: { mark?: number; signal?: AbortSignal } = {}): Promise<WaitResult> {
    const record = this.registry.get(id);
    if (!record) throw new Error(`SessionWaits.wait: no session ${id}`);
    const s = record.session;
    const started = performance.now();
    const mark = opts.mark ?? s.outputMark;
    const ref: { end?: (outcome: WaitOutcome) => void } = {};
    const answer = new Promise<WaitResult>((resolve) => {
      const subs: Disposable[] = [];
      let finished = false;
      this.waiting++;
      const finish = (outcome: WaitOutcome) => {
        if (finished) return;
        finished = true;
        this.waiting--;
        this.inProgress.delete(finish);
        for (const d of subs) d.dispose();
        // The session as it was at the moment the wait ended, not when the emulator caught up.
        const alive = this.registry.get(id);
        const session = alive ? this.describe(alive) : null;
        void s.whenParsed().then(() =>
          resolve({
            id,
            until,
            outcome,
            session,
            waitedMs: Math.round(performance.now() - started),
            lines: s.linesSince(mark),
            screen: s.screenLines({ lines: s.rows }).map((l) => l.trimEnd()),
          }),
        );
      };
      const check = () => {
        if (finished) return;
        const r = this.registry.get(id);
        if (!r) return finish('closed');
        const outcome = this.evaluate(r, until);
        if (outcome) finish(outcome);
      };
      subs.push(...this.wakeUps(id, s, until, check));
      const deadline = setTimeout(() => finish('timeout'), timeoutMs);
      subs.push({ dispose: () => clearTimeout(deadline) });
      // The asker went away (its connection closed): nobody reads the answer, so stop listening.
      const abort = () => finish('timeout');
      opts.signal?.addEventListener('abort', abort);
      subs.push({ dispose: () => opts.signal?.removeEventListener('abort', abort) });
      if (opts.signal?.aborted) abort();
      ref.end = finish;
      this.inProgress.set(finish, null);
      check();
    });
    // Still waiting (check() may have answered at once): endAll can end it.
    if (ref.end && this.inProgress.has(ref.end)) this.inProgress.set(ref.end, answer);
    return answer;
  }

  /** What makes a wait look at the session again. */
  private wakeUps(id: string, s: Session, until: WaitUntil, check: () => void): Disposable[] {
    const subs = [
      this.registry.onStateChanged((c) => c.record.id === id && check()),
      this.registry.onRemoved((r) => r.id === id && check()),
      s.onExit(() => check()),
      this.turnChanged.event((changed) => changed === id && check()),
    ];
    if (until === 'ready' || until === 'turn') {
      // Readiness also comes from quiet output and from hook reports, and a turn's evidence
      // from hooks' health, which raise no event here: looked at on a short beat as well.
      subs.push(s.onTitle(() => queueMicrotask(check)));
      const poll = setInterval(check, this.limits.readyCheckMs);
      subs.push({ dispose: () => clearInterval(poll) });
    }
    return subs;
  }

  /** Ends every wait in progress with `outcome` (the host stops and ends its sessions: "closed");
   *  resolves once each has its answer. */
  async endAll(outcome: WaitOutcome): Promise<void> {
    const answers = [...this.inProgress.values()].filter((a): a is Promise<WaitResult> => a !== null);
    for (const end of [...this.inProgress.keys()]) end(outcome);
    await Promise.all(answers);
  }

  /** The outcome the session's present state gives a wait, or null to keep waiting. */
  private evaluate(r: SessionRecord, until: WaitUntil): WaitOutcome | null {
    // A program that ended will not change any more: every wait is over.
    if (r.session.exited) return 'settled';
    if (until === 'exit') return null;
    if (until === 'attention') return r.state === 'attention' ? 'settled' : null;
    if (r.state === 'attention') return 'attention';
    switch (until) {
      case 'done':
        return r.state === 'done' || r.state === 'idle' ? 'settled' : null;
      case 'idle':
        return r.state === 'idle' ? 'settled' : null;
      case 'ready':
        return this.isReady(r) ? 'settled' : null;
      case 'turn': {
        const t = this.turns.get(r.id);
        if (!t) return r.state === 'done' || r.state === 'idle' ? 'settled' : null;
        if (t.notReady) return 'notReady';
        const hookSaw = t.hookBase < 0 || this.hookWork(r.id) > t.hookBase;
        if (t.pendingPrompt || !(this.promptHook(r.id) ? hookSaw : t.workSeen)) return null;
        return r.state === 'done' || r.state === 'idle' ? 'settled' : null;
      }
    }
  }

  private isReady(r: SessionRecord): boolean {
    if (r.state !== 'idle' && r.state !== 'done') return false;
    const evidence = this.readyEvidence(r.id);
    const last = this.lastOutput.get(r.id)?.at ?? 0;
    const quietFor = performance.now() - last;
    if (evidence === true) return quietFor >= this.limits.settleMs;
    if (last === 0) return false;
    if (evidence === undefined) return quietFor >= this.limits.quietMs;
    // An agent's TUI that has drawn only blank cells is still loading, however long it has been
    // still: OpenCode clears the screen, then boots for seconds before its input box is drawn, and
    // a paste it gets meanwhile is lost.
    return quietFor >= this.limits.quietWithChannelsMs && r.session.screenLines({ lines: r.session.rows }).some((l) => l.trim() !== '');
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
    for (const e of this.lastOutput.values()) e.sub.dispose();
    this.lastOutput.clear();
    this.turnChanged.dispose();
  }
}
