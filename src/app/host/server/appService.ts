// The host's side of the app protocol: each subscribed app connection gets a snapshot of every
// session as the sidebar, tray and why strip show it, then an event for each change; and the
// requests behind what the user does in the app (start, resume, rename, what they look at) run
// here, against the Host's services. With no app subscribed, a focus request (a notification
// click, `termio DIR`) starts the app.
import type { AppEvent, AppResults, AppSnapshot } from '../../../protocol/hostAppMessages';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { HostParams } from '../../../protocol/hostMessages';
import type { Disposable } from '../../../protocol/events';
import { BypassPolicy, type Asker } from '../status/bypassPolicy';
import type { Host } from '../host';
import type { MachinesHub } from '../machines/hub';
import type { SessionRecord } from '../sessions/sessionRegistry';

/** A session's title changes (an agent's spinner changes it several times a second) reach the
 *  apps and hubs at most this often per session, the latest one each time; any other change goes
 *  at once and carries the title with it. Twenty busy agents otherwise made the host send, and the
 *  app repaint its sidebar for, some two hundred events a second. */
export const TITLE_EVENT_INTERVAL_MS = 500;

/** What the service needs of a connection: a way to send it events, and who it says it is. */
export interface AppSubscriber {
  sendEvent(e: AppEvent): void;
  readonly asker: Asker;
}

type AppErrorCode = 'noSuchSession' | 'spawnFailed' | 'badDirectory' | 'forbidden';
export type AppAnswer<T> = { ok: true; result: T } | { ok: false; code: AppErrorCode; message: string };

type AppMethod = keyof AppResults;
type Reply<M extends AppMethod> = { ok: true; result: AppResults[M] } | { ok: false; error: { code: AppErrorCode | 'unknownMethod'; message: string } };

/** One handler per app.* method, in the shape connection.ts's method table takes; a host
 *  that serves no app (a bare one in tests) refuses them all. */
export function appMethods(
  service: () => AppService | null,
  sub: AppSubscriber,
): { [M in AppMethod]: (id: number, params: HostParams<M>) => Reply<M> | Promise<Reply<M>> } {
  const none = { ok: false, error: { code: 'unknownMethod', message: 'this host serves no app' } } as const;
  const reply = <T>(a: AppAnswer<T>) => (a.ok ? { ok: true as const, result: a.result } : { ok: false as const, error: { code: a.code, message: a.message } });
  const done = (act: (s: AppService) => void) => {
    const app = service();
    if (!app) return none;
    act(app);
    return { ok: true as const, result: {} };
  };
  return {
    'app.subscribe': async (_id, p) => {
      const app = service();
      return app ? { ok: true, result: await app.subscribe(sub, p) } : none;
    },
    'app.launch': async (_id, p) => {
      const app = service();
      return app ? reply(await app.launch(p, sub)) : none;
    },
    'app.relaunch': async (_id, p) => {
      const app = service();
      return app ? reply(await app.relaunch(p)) : none;
    },
    'app.rename': async (_id, p) => {
      const app = service();
      return app ? reply(await app.rename(p)) : none;
    },
    'app.looking': (_id, p) => done((s) => s.looking(p)),
    'app.notificationClicked': (_id, p) => done((s) => s.focus(p.session)),
    'app.answer': (_id, p) => {
      const app = service();
      return app ? reply(app.answer(p)) : none;
    },
  };
}

export interface AppServiceOptions {
  /** Starts the app (detached), asking it to show the given session, when none is subscribed. */
  startApp?: (focusSession: string | null) => void;
  /** The other machines: their sessions join every snapshot and event. */
  machines?: MachinesHub;
}

export class AppService implements Disposable {
  private readonly apps = new Map<AppSubscriber, { notifier: 'tray' | 'host' }>();
  /** Hubs on other machines: they follow this machine's sessions, and are not "the app". */
  private readonly hubs = new Set<AppSubscriber>();
  private readonly subscriptions: Disposable[] = [];
  private readonly perSession = new Map<string, Disposable[]>();
  /** When each session's last event went out, and its title change waiting for the interval. */
  private readonly sentAt = new Map<string, number>();
  private readonly titleTimers = new Map<string, NodeJS.Timeout>();
  private restored: Promise<void> | null = null;
  /** Who may start with permission bypass through the host's socket (app.launch, sessions.spawn). */
  readonly bypass: BypassPolicy;

  constructor(
    private readonly host: Host,
    private readonly opts: AppServiceOptions = {},
  ) {
    this.bypass = new BypassPolicy(
      (s) => host.callerOf(s),
      host.opts.logger,
      async (argv) => host.bypassFlagIn(argv),
    );
    const reg = host.registry;
    this.subscriptions.push(
      reg.onAdded((r) => this.added(r)),
      reg.onRemoved((r) => this.removed(r)),
      reg.onChanged((r) => this.changedSoon(r.id)),
      reg.onStateChanged((c) => this.changed(c.record.id)),
      reg.onStallChanged((r) => this.changed(r.id)),
      reg.onFocusRequested((r) => this.focus(r.id)),
      host.tracker.onProgress((p) => this.changed(p.sessionId)),
      host.worktrees.onCount((c) => this.changed(c.sessionId)),
      host.questions.onQuestion((q) => this.changed(q.sessionId)),
    );
    for (const r of reg.list()) this.added(r, false);
    const m = opts.machines;
    if (m) {
      this.subscriptions.push(
        m.onSessionChanged((session) => this.toApps({ t: 'event', event: 'session', session })),
        m.onSessionRemoved((id) => this.toApps({ t: 'event', event: 'sessionRemoved', id })),
        m.onBell((id) => this.toApps({ t: 'event', event: 'bell', id })),
        m.onMachinesChanged((machines) => this.toApps({ t: 'event', event: 'machines', machines })),
        m.askpass.onAsk((a) => this.toApps({ t: 'event', event: 'askpass', ...a })),
        m.askpass.onDone((id) => this.toApps({ t: 'event', event: 'askpassDone', id })),
      );
      m.askpass.appAttached = () => this.appAttached;
    }
  }

  /** Whether an app is subscribed now (the host notifies by itself otherwise). */
  get appAttached(): boolean {
    return this.apps.size > 0;
  }

  /** Whether the subscribed app shows notifications itself (through its tray). */
  get appNotifies(): boolean {
    return [...this.apps.values()].some((a) => a.notifier === 'tray');
  }

  async subscribe(sub: AppSubscriber, p: HostParams<'app.subscribe'>): Promise<AppSnapshot> {
    if (p.hub) {
      this.hubs.add(sub);
      return { sessions: this.host.registry.list().map((r) => this.info(r)), windows: [], problems: [], otherApp: false };
    }
    const otherApp = this.apps.size > 0 && !this.apps.has(sub);
    if (!otherApp) {
      this.apps.set(sub, { notifier: p.notifier ?? 'host' });
      this.machinesMeetApp(sub);
    }
    if (p.restore && !otherApp) {
      this.restored ??= this.restoreAll();
      await this.restored;
    }
    const host = this.host;
    return {
      sessions: [...host.registry.list().map((r) => this.info(r)), ...(this.opts.machines?.sessions() ?? [])],
      windows: host.savedWindows(),
      problems: host.problems.map((x) => ({ ...x })),
      otherApp,
      machines: this.opts.machines ? this.opts.machines.list() : undefined,
    };
  }

  /** After the snapshot: the questions ssh is asking now, and the machines that waited for an app
   *  to ask theirs try again. */
  private machinesMeetApp(sub: AppSubscriber): void {
    const m = this.opts.machines;
    if (!m) return;
    setImmediate(() => {
      if (!this.apps.has(sub)) return;
      for (const a of m.askpass.open()) sub.sendEvent({ t: 'event', event: 'askpass', ...a });
      m.appArrived();
    });
  }

  unsubscribe(sub: AppSubscriber): void {
    this.apps.delete(sub);
    this.hubs.delete(sub);
  }

  /** Relaunches every saved session the host does not run, window by window (the app's start). */
  private async restoreAll(): Promise<void> {
    for (const id of this.host.savedWindows()) await this.host.restoreWindow(id);
  }

  /**
   * A tab the user opened in the app. With permission bypass (asked, or the agent's setting) only
   * the subscribed app may, speaking for the user: any other connection of the socket could be
   * a program in a tab.
   */
  async launch(p: HostParams<'app.launch'>, from: AppSubscriber): Promise<AppAnswer<{ session: SessionInfo }>> {
    if (p.bypass || this.host.bypassByDefault(p.agentId ?? undefined)) {
      const what = p.agentId ?? 'a terminal';
      if (!this.apps.has(from)) {
        this.host.opts.logger.warn('host: app.launch: bypass start refused (the connection is not the subscribed app)', { what });
        return {
          ok: false,
          code: 'forbidden',
          message: `only the Termio app may start ${what} with permission bypass through app.launch (this connection has not subscribed as the app)`,
        };
      }
      const refused = this.bypass.refuse(from.asker, what, 'host: app.launch');
      if (refused && !refused.ok) return { ok: false, code: 'forbidden', message: refused.message };
    }
    if (p.machine) {
      const { machine, ...rest } = p;
      const r = await this.onMachine(machine, 'app.launch', rest);
      return r.ok ? { ok: true, result: { session: { ...(r.result as { session: SessionInfo }).session, machine, reachable: true } } } : r;
    }
    this.host.activeWindowId = p.windowId;
    const r = await this.host.registry.spawn({
      agent: p.agentId || undefined,
      cwd: p.cwd,
      bypass: p.bypass,
      worktree: p.worktree ? {} : undefined,
    });
    if (!r.ok) return { ok: false, code: r.code === 'badDirectory' ? 'badDirectory' : 'spawnFailed', message: r.message };
    return { ok: true, result: { session: this.info(r.record) } };
  }

  async relaunch(p: HostParams<'app.relaunch'>): Promise<AppAnswer<{ relaunched: boolean }>> {
    const away = this.remoteOf(p.session);
    if (away) return this.onMachine(away, 'app.relaunch', p) as Promise<AppAnswer<{ relaunched: boolean }>>;
    if (!this.host.registry.get(p.session)) return { ok: false, code: 'noSuchSession', message: `no session ${p.session}` };
    return { ok: true, result: { relaunched: await this.host.relaunch(p.session) } };
  }

  rename(p: HostParams<'app.rename'>): AppAnswer<Record<string, never>> | Promise<AppAnswer<Record<string, never>>> {
    const away = this.remoteOf(p.session);
    if (away) return this.onMachine(away, 'app.rename', p) as Promise<AppAnswer<Record<string, never>>>;
    if (!this.host.registry.get(p.session)) return { ok: false, code: 'noSuchSession', message: `no session ${p.session}` };
    this.host.rename(p.session, p.title);
    return { ok: true, result: {} };
  }

  looking(p: HostParams<'app.looking'>): void {
    const away = p.session ? this.remoteOf(p.session) : null;
    // The machine decides done → idle for its own sessions: it hears what the user looks at.
    if (away) void this.onMachine(away, 'app.looking', { session: p.session, windowId: null });
    if (p.windowId) this.host.activeWindowId = p.windowId;
    this.host.setLookingAt(p.session);
  }

  /** The machine that runs a session this host does not, or null. */
  private remoteOf(id: string): string | null {
    if (this.host.registry.get(id)) return null;
    return this.opts.machines?.session(id)?.machine ?? null;
  }

  /** An app request run by a machine's host, answered as if here. */
  private async onMachine(name: string, method: 'app.launch' | 'app.relaunch' | 'app.rename' | 'app.looking', params: object): Promise<AppAnswer<unknown>> {
    const link = this.opts.machines?.link(name);
    if (!link) return { ok: false, code: 'spawnFailed', message: `no machine '${name}' is saved` };
    if (!link.client) return { ok: false, code: 'spawnFailed', message: `${name} is not connected: ${link.why ?? link.state}` };
    const r = await link.client.requestAny(method, params);
    if (r.ok) return { ok: true, result: r.result };
    const code = r.error.code === 'badDirectory' || r.error.code === 'noSuchSession' ? r.error.code : 'spawnFailed';
    return { ok: false, code, message: `${name}: ${r.error.message}` };
  }

  /** A second launch of the app, or `termio DIR`: the subscribed app comes forward, else one starts. */
  activate(): void {
    if (this.apps.size === 0) this.opts.startApp?.(null);
    else this.toApps({ t: 'event', event: 'activate' });
  }

  /** A notification was clicked: the app shows the session (started first if none runs). */
  focus(id: string | null): void {
    if (this.apps.size === 0) this.opts.startApp?.(id);
    else if (id) this.toApps({ t: 'event', event: 'focus', id });
    else this.toApps({ t: 'event', event: 'activate' });
  }

  /** A notification for the app to show through its tray; false when no app shows them. */
  notify(title: string, body: string, session: string | null): boolean {
    const target = [...this.apps].find(([, a]) => a.notifier === 'tray')?.[0];
    if (!target) return false;
    target.sendEvent({ t: 'event', event: 'notify', title, body, session });
    return true;
  }

  info(r: SessionRecord): SessionInfo {
    return this.host.facts.info(r);
  }

  /** A choice picked in the tray: its keys go to the session, unless the question changed. */
  answer(p: HostParams<'app.answer'>): AppAnswer<AppResults['app.answer']> {
    const r = this.host.registry.get(p.session);
    if (!r) return { ok: false, code: 'noSuchSession', message: `no session ${p.session}` };
    const res = this.host.questions.answer(r, String(p.choice + 1), p.question, false, 'the app');
    return { ok: true, result: res.ok ? { answered: true, message: `answered “${res.choice}”` } : { answered: false, message: res.message } };
  }

  private added(r: SessionRecord, announce = true): void {
    const s = r.session;
    this.perSession.set(r.id, [s.onExit(() => this.changed(r.id)), s.onBell(() => this.broadcast({ t: 'event', event: 'bell', id: r.id }))]);
    if (announce) this.changed(r.id);
  }

  private removed(r: SessionRecord): void {
    for (const d of this.perSession.get(r.id) ?? []) d.dispose();
    this.perSession.delete(r.id);
    clearTimeout(this.titleTimers.get(r.id));
    this.titleTimers.delete(r.id);
    this.sentAt.delete(r.id);
    this.broadcast({ t: 'event', event: 'sessionRemoved', id: r.id });
  }

  /** A title or name changed: sent now, or once the session's interval is over. */
  private changedSoon(id: string): void {
    if (this.titleTimers.has(id)) return;
    const wait = (this.sentAt.get(id) ?? -Infinity) + TITLE_EVENT_INTERVAL_MS - Date.now();
    if (wait <= 0) return this.changed(id);
    this.titleTimers.set(
      id,
      setTimeout(() => this.changed(id), wait),
    );
  }

  private changed(id: string): void {
    clearTimeout(this.titleTimers.get(id));
    this.titleTimers.delete(id);
    if (this.apps.size === 0 && this.hubs.size === 0) return;
    const r = this.host.registry.get(id);
    if (!r) return;
    this.sentAt.set(id, Date.now());
    this.broadcast({ t: 'event', event: 'session', session: this.info(r) });
  }

  /** Events about this machine's sessions: every app and every hub. */
  private broadcast(e: AppEvent): void {
    for (const sub of this.apps.keys()) sub.sendEvent(e);
    if (e.event === 'session' || e.event === 'sessionRemoved' || e.event === 'bell') for (const sub of this.hubs) sub.sendEvent(e);
  }

  /** Events about other machines (and requests only the user's app acts on): apps only. */
  private toApps(e: AppEvent): void {
    for (const sub of this.apps.keys()) sub.sendEvent(e);
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0)) d.dispose();
    for (const ds of this.perSession.values()) for (const d of ds) d.dispose();
    this.perSession.clear();
    for (const t of this.titleTimers.values()) clearTimeout(t);
    this.titleTimers.clear();
    this.apps.clear();
    this.hubs.clear();
  }
}
