// The host's list of live sessions: who they are (id, agent, folder, title), which status state
// each is in and since when, and the requests other parts make about them (spawn, focus, close).
// UI-free: the window listens to its events; the control server and the status engine drive it.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import type { SessionState, StatusFailure } from '../../../protocol/status/sessionState';
import { Emitter, type Disposable } from '../../../protocol/events';
import { Session, type LaunchError } from '../../../terminal/node';

export type { SessionState };

/** What the registry asks a spawner for. `id` is minted by the registry and must become the Session's id. */
export interface SpawnRequest {
  id: string;
  /** Manifest id; undefined = a plain login shell. */
  agent?: string;
  cwd: string;
  bypass: boolean;
  title?: string;
  /** A command to run as is (no shell, no agent manifest): `termio sessions run`. */
  argv?: string[];
  /** Start in a new git worktree of the repository `cwd` is in (the spawner makes it). */
  worktree?: WorktreeChoice;
  /** Resume this conversation of the agent (`termio history resume`): bound before the launch plans. */
  conversation?: { id: string; family: 'pinned' | 'discovered' };
}

/** The worktree a spawn asks for; the prompt names the branch when none is given. */
export interface WorktreeChoice {
  branch?: string;
  base?: string;
  prompt?: string;
}

/** A failure the user caused (unknown agent, missing binary): shown to them, never thrown. */
export type SpawnFailure = LaunchError | { kind: string; message: string };

/** Turns a request into a running Session. The app passes one that builds argv from the agent manifest. */
export type Spawner = (req: SpawnRequest) => Session | SpawnFailure | Promise<Session | SpawnFailure>;

/** A spawner for plain shells: `argv` omitted = the user's login shell (Session.spawn's default). */
export function shellSpawner(argv?: string[], env?: Record<string, string>): Spawner {
  return (req) => {
    if (req.agent !== undefined) {
      return { kind: 'unknownAgent', message: `this host has no agent catalog, so it cannot launch '${req.agent}'` };
    }
    const command = req.argv ?? argv;
    return Session.spawn({ cwd: req.cwd, id: req.id, argv: command || undefined, env: env || undefined });
  };
}

export interface SessionRecord {
  readonly id: string;
  readonly agentId: string | null;
  readonly cwd: string;
  /** The name given at spawn (or by rename), else the live terminal title, else ''. */
  readonly title: string;
  /** The name given at spawn or by rename, null when the live title shows. */
  readonly name: string | null;
  readonly state: SessionState;
  /** Which channel, rule or event put the session in its state. */
  readonly stateWhy: string;
  /** The failure it stopped on (its state is attention), or null. */
  readonly failure: StatusFailure | null;
  /** Epoch ms. */
  readonly stateSince: number;
  /** Epoch ms since when it waits for you (the attention queue, src/protocol/attentionQueue.ts);
   *  null when it does not: not in attention, or handled since. */
  readonly waitingSince: number | null;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly bypass: boolean;
  /** The session that started this one (a spawn or run from inside it), else null. */
  readonly parentId: string | null;
  /** Epoch ms since when the session has been working with no sign of life; null when it is not stalled. */
  readonly stalledSince: number | null;
  readonly session: Session;
}

/** What add() takes besides the session. */
export interface RecordMeta {
  agentId?: string | null;
  title?: string;
  bypass?: boolean;
  parentId?: string | null;
  createdAt?: number;
  /** Carried from a previous host; `waitingSince` absent (an older host): since the state began, in attention. */
  state?: { state: SessionState; why: string; since: number; failure?: StatusFailure; waitingSince?: number | null };
}

export interface StateChange {
  record: SessionRecord;
  previous: SessionState;
  why: string;
}

export type FindResult = { ok: true; record: SessionRecord } | { ok: false; code: 'noSuchSession' | 'ambiguousSession'; message: string };

export type SpawnResult = { ok: true; record: SessionRecord } | { ok: false; code: 'spawnFailed' | 'badDirectory' | 'worktreeRefused'; message: string };

export interface SessionRegistryOptions {
  /** Default: plain login shells (shellSpawner()). */
  spawner?: Spawner;
  /** Folder for a spawn without cwd. Default: the home folder. */
  defaultCwd?: string;
  /** Clock (epoch ms), replaceable in tests. */
  now?: () => number;
}

function isSpawnFailure(r: Session | SpawnFailure): r is SpawnFailure {
  return typeof (r as { kind?: unknown }).kind === 'string';
}

interface MutableRecord {
  id: string;
  agentId: string | null;
  cwd: string;
  name: string | undefined;
  state: SessionState;
  stateWhy: string;
  failure: StatusFailure | null;
  stateSince: number;
  waitingSince: number | null;
  createdAt: number;
  bypass: boolean;
  parentId: string | null;
  stalledSince: number | null;
  session: Session;
  subscriptions: Disposable[];
  view: SessionRecord;
}

/** The record's fields its users read as they are (title and name are derived, below). */
const PLAIN_FIELDS = [
  'id',
  'agentId',
  'cwd',
  'state',
  'stateWhy',
  'failure',
  'stateSince',
  'waitingSince',
  'createdAt',
  'bypass',
  'parentId',
  'stalledSince',
  'session',
] as const satisfies ReadonlyArray<keyof SessionRecord & keyof MutableRecord>;
// Fails to compile when SessionRecord gains a field that liveView does not serve.
const _everyField: Record<Exclude<keyof SessionRecord, (typeof PLAIN_FIELDS)[number] | 'title' | 'name'>, never> = {};

/** The record as the registry's users see it: read-only, and always current (every field a getter). */
function liveView(r: MutableRecord): SessionRecord {
  const view: Partial<Record<keyof SessionRecord, unknown>> = {};
  const getter = (key: keyof SessionRecord, get: () => unknown) => Object.defineProperty(view, key, { get, enumerable: true });
  for (const key of PLAIN_FIELDS) getter(key, () => r[key]);
  getter('title', () => r.name ?? r.session.title);
  getter('name', () => r.name ?? null);
  return view as SessionRecord;
}

export class SessionRegistry implements Disposable {
  private readonly records = new Map<string, MutableRecord>();
  private readonly spawner: Spawner;
  private readonly defaultCwd: string;
  private readonly now: () => number;
  /** The latest createdAt given so far: each new session's is later (createdAt()). */
  private lastCreatedAt = -Infinity;
  private readonly added = new Emitter<SessionRecord>();
  private readonly removed = new Emitter<SessionRecord>();
  private readonly changed = new Emitter<SessionRecord>();
  private readonly stateChanged = new Emitter<StateChange>();
  private readonly focusRequested = new Emitter<SessionRecord>();
  private readonly stallChanged = new Emitter<SessionRecord>();
  private disposed = false;

  /** A session joined the registry (spawned here or adopted). */
  readonly onAdded = this.added.event;
  /** A session was closed; its process is being killed. */
  readonly onRemoved = this.removed.event;
  /** Title, name, exit status, the failure it stopped on, or its place in the attention queue changed. */
  readonly onChanged = this.changed.event;
  readonly onStateChanged = this.stateChanged.event;
  /** Someone (CLI, notification, menu) asked to bring the session to the front. */
  readonly onFocusRequested = this.focusRequested.event;
  /** A session started or stopped being stalled (stalledSince changed). */
  readonly onStallChanged = this.stallChanged.event;

  constructor(opts: SessionRegistryOptions = {}) {
    this.spawner = opts.spawner ?? shellSpawner();
    this.defaultCwd = opts.defaultCwd ?? homedir();
    this.now = opts.now ?? Date.now;
  }

  /** Sessions in the order they were added: the order of their createdAt, which a new host
   *  adopting them goes by to list them as they were. */
  list(): SessionRecord[] {
    return [...this.records.values()].map((r) => r.view);
  }

  get(id: string): SessionRecord | undefined {
    return this.records.get(id)?.view;
  }

  get size(): number {
    return this.records.size;
  }

  /** Finds a session by its id or a unique prefix of it. */
  find(ref: string): FindResult {
    const exact = this.records.get(ref);
    if (exact) return { ok: true, record: exact.view };
    const matches = ref ? [...this.records.keys()].filter((id) => id.startsWith(ref)) : [];
    if (matches.length === 1) return { ok: true, record: (this.records.get(matches[0] as string) as MutableRecord).view };
    if (matches.length === 0) return { ok: false, code: 'noSuchSession', message: `no session matches '${ref}'` };
    return {
      ok: false,
      code: 'ambiguousSession',
      message: `'${ref}' matches ${matches.length} sessions (${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}); give more of the id`,
    };
  }

  /** Starts a session through the spawner. Resolves once the process is started, not when the program is ready. */
  async spawn(
    req: Partial<Pick<SpawnRequest, 'agent' | 'cwd' | 'bypass' | 'title' | 'argv' | 'worktree' | 'conversation'>> & { parentId?: string } = {},
  ): Promise<SpawnResult> {
    if (this.disposed) throw new Error('SessionRegistry.spawn after dispose');
    const cwd = req.cwd ?? this.defaultCwd;
    if (!isAbsolute(cwd)) return { ok: false, code: 'badDirectory', message: `the folder must be an absolute path, got '${cwd}'` };
    let isDir = false;
    try {
      isDir = statSync(cwd).isDirectory();
    } catch {
      // Missing or unreadable: reported below.
    }
    if (!isDir) return { ok: false, code: 'badDirectory', message: `'${cwd}' is not an existing folder` };
    const id = randomUUID();
    const spawnReq: SpawnRequest = {
      id,
      cwd,
      bypass: req.bypass ?? false,
      agent: req.agent,
      title: req.title,
      argv: req.argv,
      worktree: req.worktree,
      conversation: req.conversation,
    };
    const result = await this.spawner(spawnReq);
    if (isSpawnFailure(result)) return { ok: false, code: result.kind === 'worktreeRefused' ? 'worktreeRefused' : 'spawnFailed', message: result.message };
    if (this.disposed) {
      result.dispose();
      throw new Error('SessionRegistry disposed while a spawn was in flight');
    }
    const record = this.add(result, { agentId: req.agent ?? null, title: req.title, bypass: spawnReq.bypass, parentId: req.parentId ?? null });
    return { ok: true, record };
  }

  /** Adopts a Session started elsewhere (a resumed tab, or one a previous host left running:
   *  then with its creation time and state). The registry owns it from now on. */
  add(session: Session, meta: RecordMeta = {}): SessionRecord {
    if (this.records.has(session.id)) throw new Error(`SessionRegistry.add: session ${session.id} is already registered`);
    const now = this.now();
    const st = meta.state;
    const r: MutableRecord = {
      id: session.id,
      agentId: meta.agentId ?? null,
      cwd: session.cwd,
      name: meta.title || undefined,
      state: st?.state ?? 'idle',
      stateWhy: st?.why ?? 'started',
      failure: st?.failure ?? null,
      stateSince: st?.since ?? now,
      waitingSince: st?.waitingSince !== undefined ? st.waitingSince : st?.state === 'attention' ? st.since : null,
      createdAt: this.createdAt(meta.createdAt, now),
      bypass: meta.bypass ?? false,
      parentId: meta.parentId ?? null,
      stalledSince: null,
      session,
      subscriptions: [],
      view: undefined as unknown as SessionRecord,
    };
    r.view = liveView(r);
    r.subscriptions.push(
      session.onTitle(() => {
        if (r.name === undefined) this.changed.fire(r.view);
      }),
      session.onExit(() => this.changed.fire(r.view)),
    );
    this.records.set(r.id, r);
    this.added.fire(r.view);
    return r.view;
  }

  /** A new session's creation time, later than every one before it even within one millisecond
   *  or when the clock went back: createdAt is the listing order, and the only one a new host
   *  adopting the sessions can go by. A time carried from a previous host is kept as it is. */
  private createdAt(carried: number | undefined, now: number): number {
    const t = carried ?? Math.max(now, this.lastCreatedAt + 1);
    this.lastCreatedAt = Math.max(this.lastCreatedAt, t);
    return t;
  }

  /** Moves a session to a state (the status engine calls this), with the failure it stopped on.
   *  No state event when the state stays; a new failure in the same state is a change. */
  setState(id: string, state: SessionState, why: string, failure: StatusFailure | null = null): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    const failureChanged = r.failure?.reason !== failure?.reason;
    r.failure = failure;
    if (r.state === state) {
      r.stateWhy = why;
      if (failureChanged) this.changed.fire(r.view);
      return true;
    }
    const previous = r.state;
    r.state = state;
    r.stateWhy = why;
    r.stateSince = this.now();
    r.waitingSince = state === 'attention' ? r.stateSince : null;
    this.stateChanged.fire({ record: r.view, previous, why });
    return true;
  }

  /** The user dealt with a waiting session (answered it, typed into it, or marked it): it leaves
   *  the attention queue and keeps its state. False when no session has the id. */
  handled(id: string): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    if (r.waitingSince === null) return true;
    r.waitingSince = null;
    this.changed.fire(r.view);
    return true;
  }

  /** A handled session that still needs you asks something new: it joins the queue again, now. */
  waitAgain(id: string): void {
    const r = this.records.get(id);
    if (!r || r.state !== 'attention' || r.waitingSince !== null) return;
    r.waitingSince = this.now();
    this.changed.fire(r.view);
  }

  /** Marks a session stalled since `since` (epoch ms), or no longer stalled (null). */
  setStalled(id: string, since: number | null): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    if (r.stalledSince === since) return true;
    r.stalledSince = since;
    this.stallChanged.fire(r.view);
    return true;
  }

  /** The sessions this one started that are still open. */
  children(id: string): SessionRecord[] {
    return [...this.records.values()].filter((r) => r.parentId === id).map((r) => r.view);
  }

  /** Names a session (shown instead of the terminal title); '' goes back to the live title. */
  rename(id: string, title: string): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    r.name = title || undefined;
    this.changed.fire(r.view);
    return true;
  }

  requestFocus(id: string): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    this.focusRequested.fire(r.view);
    return true;
  }

  /** Removes the session and kills its process. */
  close(id: string): boolean {
    const r = this.records.get(id);
    if (!r) return false;
    this.records.delete(id);
    for (const s of r.subscriptions) s.dispose();
    r.session.dispose();
    this.removed.fire(r.view);
    return true;
  }

  dispose(): void {
    if (this.disposed) return;
    for (const id of [...this.records.keys()]) this.close(id);
    this.disposed = true;
    for (const e of [this.added, this.removed, this.changed, this.stateChanged, this.focusRequested, this.stallChanged]) e.dispose();
  }
}
