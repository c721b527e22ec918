// One machine's connection: `ssh -T … termio host --stdio` as a child, the host client protocol
// over its stdio, a hub subscription to that host's sessions (kept as the last known state, shown
// dimmed while the machine is away), a heartbeat that notices a link gone silent, and reconnection
// with backoff. It relays nothing itself: frames and view events go to whoever listens (the relay).
import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import { Emitter } from '../../../protocol/events';
import type { AppEvent } from '../../../protocol/hostAppMessages';
import { SessionInfoSchema, type SessionInfo } from '../../../protocol/sessionInfo';
import { HOST_PROTOCOL_VERSION } from '../../../protocol/hostFraming';
import { HUB_CAPABILITY, type HostEvent } from '../../../protocol/hostMessages';
import { reconnectDelayMs, type Machine, type MachineInfo, type MachineState } from '../../../protocol/machines';
import { HostClient } from '../../client/hostClient';
import type { Logger } from '../../services/log';
import type { AskpassBroker } from './askpass';
import { classifyExit, lastWords, sshArgs } from '../../services/sshCommand';

/** From ssh's start to the remote host's hello: ssh's own connect timeout (10 s) plus a remote
 *  host that has to start first (up to 10 s on a loaded machine). */
export const HELLO_TIMEOUT_MS = 25_000;
/** How often the hub asks a connected machine's host for a sign of life. */
export const HEARTBEAT_MS = 5_000;
/** A host answers in milliseconds; one that has not for 10 s is hung (a stopped sshd, a wedged
 *  link ssh has not noticed yet), so the connection is dropped and made again. */
export const HEARTBEAT_TIMEOUT_MS = 10_000;
/** ssh's stderr kept for the reason a connection failed: its last lines are what matter. */
const STDERR_KEEP_CHARS = 4096;
/** A connection that stayed up this long was a working one: the next drop retries from the
 *  first, shortest delay again. */
const STABLE_MS = 10_000;
/** A machine's sessions the hub keeps at most: a host runs tens, a few hundred at the very most;
 *  beyond this a machine is flooding, and more would only cost this host memory. */
export const MAX_SESSIONS_PER_MACHINE = 1000;
/** One remote session as JSON at most (title, folder, command line and the rest together): a real
 *  one is a few KiB, a long prompt in its command line included. */
export const MAX_REMOTE_SESSION_CHARS = 64 * 1024;
/** A session id from a machine at most (the host's own are 36-character UUIDs). */
const MAX_REMOTE_ID_CHARS = 64;

/** ssh connections being made at once, across every machine: each is an ssh process doing a key
 *  exchange, so a long list connects a few at a time rather than all together. */
export const MAX_CONCURRENT_CONNECTS = 4;

/** At most `limit` connection attempts at once; the others wait their turn, first come first served. */
export class ConnectGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit = MAX_CONCURRENT_CONNECTS) {}

  /** Resolves with the release once a place is free (the release is safe to call twice). */
  async acquire(): Promise<() => void> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((r) => this.waiting.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The place passes straight to the next in line; otherwise it is free.
      if (next) next();
      else this.running--;
    };
  }
}

export interface LinkDeps {
  logger: Logger;
  /** Shared by a hub's links so only a few connect at once; omitted: no limit. */
  gate?: ConnectGate;
  version: string;
  env: NodeJS.ProcessEnv;
  /** Whether ssh may not ask anything: BatchMode. */
  batch(): boolean;
  /** Asked once a host said hello with its id: null lets this link connect it; otherwise the
   *  host is already connected (or is the hub's own), and the answer says by which machine. */
  claim?(link: MachineLink, hostId: string): { sameAs: string | null } | null;
  /** Whether this host has a session of that id: a machine's session with the same id is
   *  dropped, since every verb, attach and answer for that id goes to the local one. */
  isLocal?(id: string): boolean;
  /** ssh's questions go to the app through this helper (SSH_ASKPASS), and BatchMode is off;
   *  omitted: ssh asks nothing (BatchMode, from deps.batch). */
  askpass?: { script: string; socket: string; broker: AskpassBroker };
}

/** Why a machine is not connected while its question waits for an app. */
function needsAppWhy(name: string): string {
  return `${name} needs a passphrase or code: open Termio to answer it`;
}

export class MachineLink {
  state: MachineState = 'connecting';
  why: string | null = null;
  remoteVersion: string | null = null;
  remoteProtocol: number | null = null;
  hostId: string | null = null;
  sameAs: string | null = null;
  retryAt: number | null = null;
  since = Date.now();
  /** The machine's sessions as its host last described them, tagged with the machine. */
  readonly sessions = new Map<string, SessionInfo>();
  client: HostClient | null = null;
  private child: ChildProcess | null = null;
  private attempt = 0;
  private connectedAt = 0;
  private everConnected = false;
  private failure: { state: MachineState; why: string } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private disposed = false;
  /** An attempt waits for its turn at the gate (no ssh yet). */
  private queued = false;
  /** This attempt's question found no app to ask: the machine says so, and an app's arrival retries. */
  waitsForApp = false;
  private helloTimer: NodeJS.Timeout | null = null;
  /** What this connection's sessions were dropped for, each logged once per connection. */
  private readonly dropped = new Set<string>();
  /** While app.subscribe is answered: the sessions events described or removed meanwhile. Events
   *  can be read before the answer's turn comes, and are newer than its snapshot. */
  private sinceSnapshot: { described: Set<string>; removed: Set<string> } | null = null;

  private readonly sessionChanged = new Emitter<SessionInfo>();
  private readonly sessionRemoved = new Emitter<string>();
  private readonly stateChanged = new Emitter<void>();
  private readonly connected = new Emitter<HostClient>();
  private readonly frame = new Emitter<Uint8Array>();
  private readonly viewEvent = new Emitter<HostEvent>();
  private readonly bell = new Emitter<string>();
  readonly onSessionChanged = this.sessionChanged.event;
  readonly onSessionRemoved = this.sessionRemoved.event;
  readonly onStateChanged = this.stateChanged.event;
  readonly onConnected = this.connected.event;
  readonly onFrame = this.frame.event;
  readonly onViewEvent = this.viewEvent.event;
  readonly onBell = this.bell.event;

  constructor(
    readonly machine: Machine,
    private readonly deps: LinkDeps,
  ) {}

  get name(): string {
    return this.machine.name;
  }

  start(): void {
    void this.connect();
  }

  info(): MachineInfo {
    return {
      ...this.machine,
      state: this.state,
      why: this.why,
      remoteVersion: this.remoteVersion,
      remoteProtocol: this.remoteProtocol,
      hostId: this.hostId,
      sameAs: this.state === 'sameMachine' ? this.sameAs : null,
      sessions: this.sessions.size,
      retryAt: this.retryAt,
      since: this.since,
    };
  }

  /** Tries again now (the user asked, or the network came back), unless a connection is up or
   *  under way. `fresh`: a failure after this starts the backoff over (a new network). */
  retryNow(opts: { fresh?: boolean } = {}): void {
    if (this.disposed || this.child || this.queued) return;
    if (opts.fresh) this.attempt = 0;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    void this.connect();
  }

  private setState(state: MachineState, why: string | null, retryAt: number | null = null): void {
    if (this.state !== state) this.since = Date.now();
    this.state = state;
    this.why = why;
    this.retryAt = retryAt;
    this.stateChanged.fire();
  }

  private async connect(): Promise<void> {
    if (this.disposed) return;
    this.failure = null;
    // A retry keeps saying what went wrong last until it succeeds or fails again; it is no
    // longer scheduled from here on, even while it waits for its turn at the gate.
    if (this.state === 'connected') this.setState('reconnecting', this.why);
    else this.setState(this.state, this.why, null);
    this.waitsForApp = false;
    this.queued = true;
    const release = (await this.deps.gate?.acquire()) ?? (() => undefined);
    this.queued = false;
    if (this.disposed) {
      release();
      return;
    }
    try {
      await this.attemptConnect();
    } finally {
      release();
    }
  }

  /** One attempt, holding a place at the gate until the remote host said hello (or did not). */
  private async attemptConnect(): Promise<void> {
    const ask = this.deps.askpass;
    const batch = ask ? false : this.deps.batch();
    const child = spawn('ssh', sshArgs(this.machine, { batch }), {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: ask
        ? {
            ...this.deps.env,
            SSH_ASKPASS: ask.script,
            SSH_ASKPASS_REQUIRE: 'force',
            TERMIO_ASKPASS_SOCKET: ask.socket,
            TERMIO_ASKPASS_TOKEN: ask.broker.tokenFor(this.name),
          }
        : this.deps.env,
    });
    this.child = child;
    this.armHelloTimer(child, () => stderr);
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEEP_CHARS)));
    child.on('error', (err) => (this.failure ??= { state: 'unreachable', why: `cannot run ssh for ${this.name}: ${err.message}` }));
    child.on('close', (code, signal) => this.ended(child, code, signal, stderr));
    const stream = Duplex.from({ readable: child.stdout!, writable: child.stdin! });
    stream.on('error', () => undefined);
    // The hello's own bound is the timer above, which waits while the user answers ssh's question.
    const c = await HostClient.over(stream, { client: 'termio-hub', version: this.deps.version }, this.name, 2 ** 31 - 1);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
    if (this.child !== child || this.disposed) {
      if (c instanceof HostClient) c.close();
      return;
    }
    if (!(c instanceof HostClient)) {
      if (c.kind === 'versionMismatch') {
        this.remoteVersion = c.hostVersion ?? null;
        this.remoteProtocol = c.protocol ?? null;
        this.failure = { state: 'versionMismatch', why: this.mismatch(c.hostVersion, c.protocol) };
      } else if (c.kind === 'failed' && c.notProtocol) {
        // ssh ran, and what answered is not Termio's host: ssh's exit (killed below) says nothing.
        this.failure = {
          state: 'unreachable',
          why: `${this.name} did not speak Termio's host protocol (${c.message}): a login script that prints, or a remote command that is not \`termio host --stdio\`, does this`,
        };
      } else if (/did not answer the hello/.test(c.message) && child.exitCode === null) {
        this.failure = {
          state: 'unreachable',
          why: `${this.name} did not answer within ${HELLO_TIMEOUT_MS / 1000} s (${lastWords(stderr) ?? 'ssh said nothing'})`,
        };
      }
      child.kill('SIGKILL');
      return;
    }
    // The hello is in: the place at the gate goes to the next machine while this one subscribes.
    void this.established(c, child);
  }

  /** Ends an attempt whose host has not said hello within HELLO_TIMEOUT_MS — not counting the
   *  time ssh's question waits for the user. */
  private armHelloTimer(child: ChildProcess, stderr: () => string): void {
    const check = (): void => {
      if (this.child !== child) return;
      if (this.deps.askpass?.broker.asking(this.name)) {
        this.helloTimer = setTimeout(check, HELLO_TIMEOUT_MS);
        return;
      }
      this.failure = {
        state: 'unreachable',
        why: `${this.name} did not answer within ${HELLO_TIMEOUT_MS / 1000} s (${lastWords(stderr()) ?? 'ssh said nothing'})`,
      };
      child.kill('SIGKILL');
    };
    this.helloTimer = setTimeout(check, HELLO_TIMEOUT_MS);
  }

  /** ssh asks a question the app shows now: the attempt waits for the user, and says so. */
  asking(): void {
    if (this.child)
      this.setState(
        this.state === 'connected' ? 'reconnecting' : this.state,
        `${this.name} waits for your answer in Termio (ssh asks for a passphrase or code)`,
        null,
      );
  }

  /** ssh asked a question while no app was attached to ask it. */
  needsAnswer(): void {
    this.waitsForApp = true;
  }

  private mismatch(version: string | undefined, protocol: number | undefined): string {
    return `${this.name} runs Termio ${version ?? '(unknown version)'} (host protocol ${protocol ?? '?'}); this one runs ${this.deps.version} (protocol ${HOST_PROTOCOL_VERSION}): run \`termio machines install ${this.name}\` to put this version there`;
  }

  private async established(c: HostClient, child: ChildProcess): Promise<void> {
    this.remoteVersion = c.hello.hostVersion;
    this.remoteProtocol = c.hello.protocol;
    if (!c.hello.capabilities.includes(HUB_CAPABILITY)) {
      this.failure = { state: 'versionMismatch', why: this.mismatch(c.hello.hostVersion, c.hello.protocol) };
      c.close();
      child.kill('SIGKILL');
      return;
    }
    if (this.sameHost(c.hello.hostId)) {
      c.close();
      child.kill('SIGKILL');
      return;
    }
    c.onRawFrame((bytes) => this.frame.fire(bytes));
    c.onEvent((e) => this.handleEvent(e));
    this.sinceSnapshot = { described: new Set(), removed: new Set() };
    this.dropped.clear();
    const snap = await c.request('app.subscribe', { restore: false, hub: true });
    const newer = this.sinceSnapshot;
    this.sinceSnapshot = null;
    if (this.child !== child) return;
    if (!snap.ok) {
      this.failure = { state: 'versionMismatch', why: `${this.name}'s host refused the hub: ${snap.error.message}` };
      child.kill('SIGKILL');
      return;
    }
    this.client = c;
    this.connectedAt = Date.now();
    this.everConnected = true;
    const seen = new Set<string>(newer.described);
    const listed: unknown = snap.result.sessions;
    for (const s of Array.isArray(listed) ? listed : []) {
      const id = (s as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && (newer.described.has(id) || newer.removed.has(id))) continue;
      const kept = this.store(s);
      if (kept) seen.add(kept.id);
    }
    for (const id of [...this.sessions.keys()]) {
      if (seen.has(id)) continue;
      this.sessions.delete(id);
      this.sessionRemoved.fire(id);
    }
    this.deps.logger.info('machine connected', { machine: this.name, version: c.hello.hostVersion, sessions: seen.size });
    this.setState('connected', null);
    this.connected.fire(c);
    this.startHeartbeat(c, child);
  }

  /** True when the host is one the hub reaches already (or its own): not connected again. */
  private sameHost(hostId: string | undefined): boolean {
    this.hostId = hostId ?? null;
    const clash = hostId ? this.deps.claim?.(this, hostId) : null;
    if (!clash) return false;
    this.sameAs = clash.sameAs;
    const why =
      clash.sameAs === null
        ? `${this.name} is this machine's own host (same host id): its sessions are listed as this machine's`
        : `same machine as ${clash.sameAs} (same host id): its sessions are listed under ${clash.sameAs}`;
    this.failure = { state: 'sameMachine', why };
    // Listed by the machine that holds the host: not twice.
    for (const id of [...this.sessions.keys()]) {
      this.sessions.delete(id);
      this.sessionRemoved.fire(id);
    }
    return true;
  }

  private startHeartbeat(c: HostClient, child: ChildProcess): void {
    let inFlight = false;
    this.heartbeat = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      void c.request('host.status', {}, HEARTBEAT_TIMEOUT_MS).then((r) => {
        inFlight = false;
        if (r.ok || c.closed || this.child !== child) return;
        this.failure = { state: 'unreachable', why: `${this.name} stopped answering (nothing for ${HEARTBEAT_TIMEOUT_MS / 1000} s)` };
        child.kill('SIGKILL');
      });
    }, HEARTBEAT_MS);
  }

  /** Keeps a session the machine described, once it passed remoteSession; returns what was kept. */
  private store(raw: unknown, reachable = true): SessionInfo | null {
    const s = this.remoteSession(raw);
    if (!s) return null;
    const tagged = { ...s, machine: this.name, reachable };
    this.sessions.set(s.id, tagged);
    this.sessionChanged.fire(tagged);
    return tagged;
  }

  /**
   * A machine's word on a session, checked as this host's own are described (SessionInfoSchema),
   * within the size and count caps above, under an id no local session has. Anything else — a
   * wrong type, a giant title, the thousand-and-first session, an impostor of a local session —
   * is dropped, and logged once per connection and reason.
   */
  private remoteSession(raw: unknown): SessionInfo | null {
    const parsed = SessionInfoSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'the session';
      return this.drop('malformed', `${where}: ${issue?.message ?? 'not a session'}`);
    }
    const s = parsed.data;
    if (s.id.length === 0 || s.id.length > MAX_REMOTE_ID_CHARS) return this.drop('bad id', `an id of ${s.id.length} characters`);
    if (this.deps.isLocal?.(s.id)) return this.drop('local id', `${s.id}: a session of this machine has that id`);
    const size = JSON.stringify(s).length;
    if (size > MAX_REMOTE_SESSION_CHARS) return this.drop('too large', `${s.id}: ${size} characters, more than ${MAX_REMOTE_SESSION_CHARS}`);
    if (!this.sessions.has(s.id) && this.sessions.size >= MAX_SESSIONS_PER_MACHINE)
      return this.drop('too many', `${s.id}: the machine already has ${MAX_SESSIONS_PER_MACHINE} sessions listed`);
    return s;
  }

  private drop(reason: string, detail: string): null {
    if (!this.dropped.has(reason)) {
      this.dropped.add(reason);
      this.deps.logger.warn('machine session dropped', {
        machine: this.name,
        reason,
        detail,
        more: 'further ones for this reason are dropped without a log line until it reconnects',
      });
    }
    return null;
  }

  private handleEvent(e: HostEvent): void {
    if (e.event === 'input' || e.event === 'detached') {
      this.viewEvent.fire(e);
      return;
    }
    const a = e as AppEvent;
    if (a.event === 'session') {
      const kept = this.store(a.session);
      if (kept) this.sinceSnapshot?.described.add(kept.id);
    } else if (a.event === 'sessionRemoved') {
      if (typeof a.id === 'string') this.sinceSnapshot?.removed.add(a.id);
      if (typeof a.id === 'string' && this.sessions.delete(a.id)) this.sessionRemoved.fire(a.id);
    } else if (a.event === 'bell') {
      // Only a bell of a session the machine described: an id is what listeners look up.
      if (typeof a.id === 'string' && this.sessions.has(a.id)) this.bell.fire(a.id);
    }
  }

  /** The ssh child is gone: say why, keep the sessions as they were last seen, retry later. */
  private ended(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, stderr: string): void {
    if (this.child !== child) return;
    this.child = null;
    this.deps.askpass?.broker.forget(this.name);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    const wasConnected = this.client !== null;
    this.client?.close();
    this.client = null;
    if (this.disposed) return;
    if (wasConnected && Date.now() - this.connectedAt > STABLE_MS) this.attempt = 0;
    let outcome = this.failure ?? classifyExit(this.name, code, signal, stderr);
    if (this.waitsForApp && !wasConnected) outcome = { state: 'unreachable', why: needsAppWhy(this.name) };
    if (wasConnected && !this.failure)
      outcome = {
        state: 'unreachable',
        why: `the connection to ${this.name} was lost (${lastWords(stderr) ?? (signal ? `ssh ended by ${signal}` : `ssh exited with code ${code}`)})`,
      };
    const delay = reconnectDelayMs(this.attempt++);
    const state = this.everConnected && outcome.state === 'unreachable' ? 'reconnecting' : outcome.state;
    this.deps.logger.info('machine disconnected', { machine: this.name, state, why: outcome.why, retryInMs: delay });
    for (const s of this.sessions.values()) if (s.reachable !== false) this.markAway(s);
    this.setState(state, outcome.why, Date.now() + delay);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
  }

  /** A session kept while its machine is away: the last known state, dimmed. */
  private markAway(s: SessionInfo): void {
    const away = { ...s, reachable: false };
    this.sessions.set(s.id, away);
    this.sessionChanged.fire(away);
  }

  /** Closes the connection for good (the machine was removed, or this host stops); its host and
   *  sessions on the machine keep running. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.client?.close();
    this.client = null;
    this.child?.kill('SIGTERM');
    this.child = null;
    // The hub has read the ids to announce their removal; nothing of the machine is kept.
    this.sessions.clear();
    for (const e of [this.sessionChanged, this.sessionRemoved, this.stateChanged, this.connected, this.frame, this.viewEvent, this.bell])
      (e as Emitter<unknown>).dispose();
  }
}
