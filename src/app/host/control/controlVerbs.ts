// What each session verb does: one handler per verb in a table typed by verb, so a verb added to
// the protocol without a handler fails to compile. This is the host's one method table for
// sessions: the control socket (line JSON, controlConnections.ts) and the host socket
// (server/connection.ts) both answer through it, each giving a VerbContext of its own.
import { statSync } from 'node:fs';
import { attentionQueue, nextSession, waitingSinceMs } from '../../../protocol/attentionQueue';
import { CONTROL_PROTOCOL_VERSION } from '../../../protocol/controlFrames';
import { type ControlArgs, type ControlErrorCode, type ControlResult, type ControlVerb, type Outcome } from '../../../protocol/control';
import { type SessionInfo } from '../../../protocol/sessionInfo';
import type { Disposable } from '../../../protocol/events';
import type { ChildNotice, WatchEvent } from '../../../protocol/control';
import type { BypassPolicy, Refusal } from '../status/bypassPolicy';
import type { DriveVerbs, Holder } from './driveVerbs';
import type { RemoteSessions } from '../machines/hubControl';
import type { ParentNotices } from '../notify/parentNotices';
import type { QuestionBook } from '../status/questionBook';
import { QuestionVerbs } from './questionVerbs';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';
import { readTranscript } from '../resume/transcript';
import type { FanoutVerbs } from '../worktrees/fanoutVerbs';
import type { WorktreeVerbs } from '../worktrees/worktreeVerbs';
import type { HistoryVerbs } from '../history/historyVerbs';
import type { SettingsVerbs } from './settingsVerbs';

export type OpenDirResult = { ok: true; id: string } | { ok: false; code: ControlErrorCode; message: string };

/** Who asks, and how to answer them beyond one reply: what each socket gives a handler. */
export interface VerbContext {
  /** The caller's TERMIO_SESSION_SECRET when it runs inside a Termio session. */
  secret: string | undefined;
  /** The session the caller says it runs in (the host socket's hello), when the request names no parent. */
  session?: string | undefined;
  /** Which socket asked, for the log: 'control' or 'host'. */
  door?: string;
  /** Ties a long request (a wait) to the caller's connection: it ends when the connection does. */
  holder: Holder;
  /** Answers `result` now, then streams each event `subscribe` emits until the caller goes (watch). */
  stream(result: unknown, subscribe: (emit: (event: WatchEvent) => void) => Disposable[]): 'replied';
}

export type Answer = Outcome | 'replied';
type Handler<V extends ControlVerb> = (args: ControlArgs<V>, ctx: VerbContext) => Answer | Promise<Answer>;
export type VerbHandlers = { [V in ControlVerb]: Handler<V> };

export interface ControlVerbsDeps {
  registry: SessionRegistry;
  /** The one SessionInfo mapper (the host's SessionFacts). */
  describe: (record: SessionRecord) => SessionInfo;
  drive: DriveVerbs;
  bypass: BypassPolicy;
  bypassByDefault: (agent: string | undefined) => Promise<boolean>;
  appVersion: string;
  /** `read`: how long to wait for the emulator to catch up with output already received. */
  readSettleMs: number;
  onOpenDir: (dir: string) => OpenDirResult | Promise<OpenDirResult>;
  onActivate: () => void;
  describeStatus: ((id: string) => ControlResult<'sessions.why'> | undefined) | undefined;
  describeResume: ((id: string) => Promise<SessionInfo['resume'] | undefined>) | undefined;
  transcriptOf: (id: string) => Promise<string | undefined>;
  /** The sessions of the other machines (the hub), when this host has any. */
  remote?: () => RemoteSessions | null;
  /** The review verbs; absent on a host without the worktree service (they are refused). */
  worktrees: WorktreeVerbs | undefined;
  /** The fan-out verbs; absent with the worktree service (they are refused). */
  fanout?: FanoutVerbs | undefined;
  /** The conversation-history verbs; absent on a host without the index (they are refused). */
  history?: HistoryVerbs | undefined;
  /** settings.json, the agents' configs and the login PATH: the state only the host writes. */
  settings?: SettingsVerbs | undefined;
  /** The host's questions, once its services are up. */
  questions: () => QuestionBook | undefined;
  /** The session the user is looking at (selected in the focused window), if any. */
  lookingAt?: () => string | null;
  /** Children that tell their parent when they finish: in `why`, and as watch events. */
  notices?: ParentNotices;
}

/** The table as the sockets use it: answer one verb for one caller. */
export interface SessionVerbs {
  answer<V extends ControlVerb>(verb: V, args: ControlArgs<V>, ctx: VerbContext): Answer | Promise<Answer>;
}

export class ControlVerbs implements SessionVerbs {
  readonly handlers: VerbHandlers;

  constructor(private readonly d: ControlVerbsDeps) {
    const holder = (ctx: VerbContext) => ctx.holder;
    const remote = (ref: string, verb: ControlVerb, args: object) => this.remote(ref, verb, args);
    const questions = new QuestionVerbs(d.registry, d.questions);
    this.handlers = {
      ping: () => ({ ok: true, result: { pong: true, protocol: CONTROL_PROTOCOL_VERSION } }),
      version: () => ({ ok: true, result: { app: d.appVersion, protocol: CONTROL_PROTOCOL_VERSION, pid: process.pid } }),
      'sessions.list': () => this.list(),
      'sessions.watch': (_args, ctx) => this.watch(ctx),
      'sessions.read': (args) => remote(args.id, 'sessions.read', args) ?? this.read(args),
      'sessions.send': (args, ctx) =>
        this.self(args.id, ctx, 'sessions.send', 'type into its own tab') ?? remote(args.id, 'sessions.send', args) ?? d.drive.send(args, holder(ctx)),
      'sessions.spawn': (args, ctx) => this.spawn(args, ctx),
      'sessions.run': (args, ctx) => this.run(args, ctx),
      'sessions.wait': (args, ctx) => remote(args.id, 'sessions.wait', args) ?? d.drive.wait(args, holder(ctx)),
      'app.notify': (args) => d.drive.notify(args),
      'sessions.why': (args) => remote(args.id, 'sessions.why', args) ?? this.why(args),
      'sessions.question': (args) => remote(args.id, 'sessions.question', args) ?? questions.question(args),
      'sessions.answer': (args, ctx) =>
        this.self(args.id, ctx, 'sessions.answer', 'answer its own question') ??
        remote(args.id, 'sessions.answer', args) ??
        questions.answer(args, d.bypass.askerName({ secret: ctx.secret, session: ctx.session })),
      'sessions.focus': (args) => this.focus(args.id),
      'sessions.next': (args) => this.next(args.focus === true),
      'sessions.handled': (args) =>
        remote(args.id, 'sessions.handled', args) ?? this.onFound(args.id, (id) => ({ wasWaiting: this.waiting(id) && d.registry.handled(id) })),
      'sessions.close': (args) =>
        remote(args.id, 'sessions.close', args) ?? (d.worktrees ? d.worktrees.close(args) : this.onFound(args.id, (id) => d.registry.close(id))),
      'app.open': (args) => this.open(args.dir),
      'app.activate': () => {
        d.onActivate();
        return { ok: true, result: { shown: true } };
      },
      'worktrees.diff': (args) => this.worktree((w) => w.diff(args)),
      'worktrees.act': (args) => this.worktree((w) => w.act(args)),
      'worktrees.remove': (args) => this.worktree((w) => w.remove(args)),
      'worktrees.list': () => this.worktree((w) => w.list()),
      'worktrees.prune': () => this.worktree((w) => w.prune()),
      'sessions.comment': (args) => this.worktree((w) => w.comment(args)),
      'sessions.comments': (args) => this.worktree((w) => w.comments(args)),
      'sessions.comments.remove': (args) => this.worktree((w) => w.removeComment(args)),
      'sessions.comments.send': (args) => this.worktree((w) => w.sendComments(args)),
      'sessions.fanout': (args, ctx) => this.fanout((f, w) => f.start(args, { spawn: (a) => this.spawn(a, ctx), close: (a) => w.close(a) })),
      'sessions.fanout.list': () => this.fanout((f) => f.list()),
      'sessions.fanout.show': (args) => this.fanout((f) => f.show(args)),
      'sessions.fanout.test': (args) => this.fanout((f) => f.test(args)),
      'sessions.fanout.merge': (args) => this.fanout((f) => f.merge(args)),
      'history.search': (args) => this.history((h) => h.search(args)),
      'history.resume': (args) => this.history((h) => h.resume(args)),
      'history.status': (args) => this.history((h) => h.status(args)),
      usage: (args) => this.history((h) => h.usage(args)),
      ...settingsHandlers(() => d.settings, d.bypass),
    };
  }

  /** Refused when the caller asks this of its own session without bypass (BypassPolicy.refuseSelf). */
  private self(ref: string, ctx: VerbContext, verb: ControlVerb, action: string): Refusal | null {
    const found = this.d.registry.find(ref);
    if (!found.ok) return null;
    return this.d.bypass.refuseSelf({ secret: ctx.secret, session: ctx.session }, found.record.id, action, `${ctx.door ?? 'control'}: ${verb}`);
  }

  /** A session another machine runs (and no session here matches the reference): its host answers. */
  private remote(ref: string, verb: ControlVerb, args: object): Promise<Outcome> | null {
    const hub = this.d.remote?.() ?? null;
    const here = this.d.registry.find(ref);
    if (!hub || here.ok || here.code === 'ambiguousSession') return null;
    return hub.forSession(ref, verb, args as Record<string, unknown>);
  }

  /** A request that names a machine: that machine's host answers (null: it names none, this host does). */
  private onMachine(machine: string | undefined, verb: ControlVerb, args: object): Promise<Outcome> | null {
    if (machine === undefined) return null;
    const hub = this.d.remote?.() ?? null;
    if (!hub) return Promise.resolve({ ok: false, code: 'noSuchMachine', message: `no machine '${machine}': none is saved (termio machines add)` });
    return hub.onMachine(machine, verb, args as Record<string, unknown>);
  }

  private async spawn(args: ControlArgs<'sessions.spawn'>, ctx: VerbContext): Promise<Answer> {
    const d = this.d;
    const bypass = args.bypass === true || (await d.bypassByDefault(args.agent));
    const refused = bypass
      ? d.bypass.refuse({ secret: ctx.secret, session: args.parent ?? ctx.session }, args.agent ?? 'an agent', `${ctx.door ?? 'control'}: sessions.spawn`)
      : null;
    if (refused) return refused;
    if (args.notifyParent && args.machine !== undefined) {
      const message = `sessions.spawn: notifyParent: a session on machine '${args.machine}' cannot tell a parent on this one`;
      return { ok: false, code: 'badRequest', message };
    }
    return this.onMachine(args.machine, 'sessions.spawn', args) ?? d.drive.spawn(d.bypass.withCaller(args, ctx.secret), ctx.holder);
  }

  private async run(args: ControlArgs<'sessions.run'>, ctx: VerbContext): Promise<Answer> {
    const d = this.d;
    const refused = await d.bypass.refuseArgv(args.argv, { secret: ctx.secret, session: args.parent ?? ctx.session }, `${ctx.door ?? 'control'}: sessions.run`);
    return refused ?? this.onMachine(args.machine, 'sessions.run', args) ?? d.drive.run(d.bypass.withCaller(args, ctx.secret), ctx.holder);
  }

  /** Answers one request with the handler for its verb. */
  answer<V extends ControlVerb>(verb: V, args: ControlArgs<V>, ctx: VerbContext): Answer | Promise<Answer> {
    return this.handlers[verb](args, ctx);
  }

  private worktree(act: (w: WorktreeVerbs) => Promise<Outcome>): Outcome | Promise<Outcome> {
    return this.d.worktrees ? act(this.d.worktrees) : { ok: false, code: 'notAWorktree', message: 'this host has no worktree service' };
  }

  private fanout(act: (f: FanoutVerbs, w: WorktreeVerbs) => Promise<Outcome>): Outcome | Promise<Outcome> {
    const { fanout, worktrees } = this.d;
    return fanout && worktrees ? act(fanout, worktrees) : { ok: false, code: 'notAWorktree', message: 'this host has no worktree service, so no fan-out' };
  }

  private history(act: (h: HistoryVerbs) => Promise<Outcome>): Outcome | Promise<Outcome> {
    return this.d.history ? act(this.d.history) : { ok: false, code: 'internal', message: 'this host keeps no conversation history' };
  }

  private async list(): Promise<Outcome> {
    const sessions = this.d.registry.list().map(this.d.describe);
    const describe = this.d.describeResume;
    if (describe) {
      await Promise.all(
        sessions.map(async (s) => {
          const resume = await describe(s.id).catch(() => undefined);
          if (resume) s.resume = resume;
        }),
      );
    }
    return { ok: true, result: { sessions: [...sessions, ...(this.d.remote?.()?.list() ?? [])] } };
  }

  private async read(args: ControlArgs<'sessions.read'>): Promise<Outcome> {
    const found = this.d.registry.find(args.id);
    if (!found.ok) return found;
    const s = found.record.session;
    if (args.transcript) return readTranscript(found.record.id, await this.d.transcriptOf(found.record.id), args.lines, s);
    await within(s.whenParsed(), this.d.readSettleMs);
    // Right-trimmed here too: typed spaces (a prompt's "$ ") are cells with content to the emulator.
    const lines = s.screenLines({ lines: args.lines, viewport: args.viewport === true }).map((l) => l.trimEnd());
    return { ok: true, result: { id: found.record.id, lines, cols: s.cols, rows: s.rows } };
  }

  private why(args: ControlArgs<'sessions.why'>): Outcome {
    const found = this.d.registry.find(args.id);
    if (!found.ok) return found;
    const r = found.record;
    const since = new Date(r.stateSince).toISOString();
    const result = this.d.describeStatus?.(r.id) ?? {
      id: r.id,
      state: r.state,
      since,
      channel: 'start',
      event: r.stateWhy || 'no status channel',
      at: since,
      health: [],
    };
    return { ok: true, result: { ...result, exited: this.d.describe(r).exited, ...this.d.notices?.facts(r.id) } };
  }

  /** Focus, close and handled: find the session, act on it, answer its id (and what the act says). */
  private onFound(ref: string, act: (id: string) => unknown): Outcome {
    const found = this.d.registry.find(ref);
    if (!found.ok) return found;
    const more = act(found.record.id);
    return { ok: true, result: { id: found.record.id, ...(typeof more === 'object' ? more : {}) } };
  }

  private waiting(id: string): boolean {
    return this.d.registry.get(id)?.waitingSince != null;
  }

  /** Brings a session's tab to the front: this host's, else another machine's. */
  private focus(ref: string): Outcome {
    const here = this.d.registry.find(ref);
    const away = !here.ok && here.code === 'noSuchSession' ? this.d.remote?.()?.focus(ref) : null;
    return away ?? this.onFound(ref, (id) => this.d.registry.requestFocus(id));
  }

  /** `sessions.next`: the attention queue's head (every machine's sessions that can be reached),
   *  else the most recently done session; with focus, its tab comes to the front, and when the
   *  user looks at a session of the queue already, the one after it does. */
  private next(focus: boolean): Outcome {
    const sessions = [...this.d.registry.list().map(this.d.describe), ...(this.d.remote?.()?.list() ?? [])];
    const facts = sessions.map((info) => ({
      id: info.id,
      state: info.state,
      waitingSince: waitingSinceMs(info),
      stateSince: Date.parse(info.stateSince),
      reachable: info.reachable === false ? false : undefined,
      info,
    }));
    // Focusing, a second request goes past the session the user looks at (see nextSession).
    const next = nextSession(facts, focus ? (this.d.lookingAt?.() ?? null) : null);
    const focused = next !== null && focus && this.focus(next.session.id).ok;
    const queue = attentionQueue(facts).map((s) => s.id);
    return { ok: true, result: { session: next?.session.info ?? null, reason: next?.reason ?? 'none', queue, focused } };
  }

  private async open(dir: string): Promise<Outcome> {
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) return { ok: false, code: 'badDirectory', message: `'${dir}' is not an existing folder` };
    const opened = await this.d.onOpenDir(dir);
    return opened.ok ? { ok: true, result: { id: opened.id } } : opened;
  }

  /** A child that tells its parent finished: the event carries the child and the notice. */
  private childFinished(notice: ChildNotice, emit: (event: WatchEvent) => void): void {
    const child = this.d.registry.get(notice.child);
    if (child) emit({ kind: 'childFinished', session: this.d.describe(child), notice });
  }

  private watch(ctx: VerbContext): 'replied' {
    const { registry, describe, notices } = this.d;
    // Snapshot and subscription in the same synchronous step, snapshot sent first: no event is
    // lost between them, none is doubled, and none can overtake the snapshot.
    return ctx.stream({ sessions: registry.list().map(describe) }, (emit) => {
      const send = (kind: WatchEvent['kind'], record: SessionRecord, previous?: WatchEvent['previous']) => emit({ kind, session: describe(record), previous });
      return [
        registry.onAdded((r) => send('added', r)),
        registry.onRemoved((r) => send('removed', r)),
        registry.onStateChanged((c) => send('state', c.record, c.previous)),
        registry.onStallChanged((r) => send('stall', r)),
        ...(notices ? [notices.onNotice((notice) => this.childFinished(notice, emit))] : []),
      ];
    });
  }
}

/** Waits for p, but at most ms; the work goes on either way. */
function within(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    p.then(done, done);
  });
}

/** The shared-state verbs (settingsVerbs.ts); refused by a host without them. A change asked
 *  from inside a session follows the bypass rule (BypassPolicy.refuseChange): a setting or an
 *  agent's hooks can make the host or the agents run something outside that session's tab. */
function settingsHandlers(
  verbs: () => SettingsVerbs | undefined,
  bypass: BypassPolicy,
): Pick<VerbHandlers, 'settings.get' | 'settings.set' | 'hooks.apply' | 'agents.loginPath'> {
  const on = (act: (s: SettingsVerbs) => Promise<Outcome>): Outcome | Promise<Outcome> => {
    const s = verbs();
    return s ? act(s) : { ok: false, code: 'internal', message: 'this host keeps no settings' };
  };
  const asker = (ctx: VerbContext) => ({ secret: ctx.secret, session: ctx.session });
  const door = (ctx: VerbContext, verb: string) => `${ctx.door ?? 'control'}: ${verb}`;
  return {
    'settings.get': () => on((s) => s.get()),
    'settings.set': (args, ctx) =>
      bypass.refuseChange(asker(ctx), `change the setting ${args.path.join('.')}`, door(ctx, 'settings.set')) ?? on((s) => s.set(args)),
    'hooks.apply': (args, ctx) =>
      (args.op === 'status' ? null : bypass.refuseChange(asker(ctx), `${args.op} agent hooks`, door(ctx, 'hooks.apply'))) ?? on((s) => s.hooks(args)),
    'agents.loginPath': () => on((s) => s.loginPath()),
  };
}
