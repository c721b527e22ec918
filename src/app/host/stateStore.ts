// Durable session state in $TERMIO_HOME/state/sessions.json (docs/architecture.md, "Where state lives"):
// windows, tab order and each session's agent, cwd, title, bound conversation and bypass flag.
// Writes are debounced and atomic (temp file, fsync, rename); reads migrate old versions; a file
// that cannot be read is moved aside and reported, never silently dropped or overwritten.
//
// What "nothing silently dropped" means here:
// - unknown fields (a newer Termio wrote them) are kept on every object and written back;
// - a session entry that fails validation is kept verbatim in `unreadable` (written back too)
//   and reported as a warning; it is not restored;
// - a session no window lists is appended to the last window and reported;
// - a tab naming a session that does not exist carries no data: it is removed and reported;
// - a whole file that cannot be read, parsed or migrated is renamed to
//   sessions.json.corrupt-<timestamp> (or .v<N>-<timestamp> when written by a newer version)
//   and the store starts empty; the returned problem says so for the app to show.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, writeTarget } from './atomicWrite';
import { nullLogger, type Logger } from './log';
import { isProcessAlive } from './processes';

export const STATE_VERSION = 1;

/**
 * Writes are coalesced: the first change after a write schedules the next one this much later,
 * and further changes ride along (so a title that changes 10×/s costs ≤ 4 writes/s, and a burst
 * such as restoring 20 sessions costs one).
 */
export const STATE_WRITE_DELAY_MS = 250;

/** A state file larger than this is not a Termio state (20 sessions are ~6 KB; 8 MiB holds thousands). */
export const MAX_STATE_BYTES = 8 * 1024 * 1024;

const SessionRecordSchema = z.looseObject({
  id: z.string().min(1),
  agentId: z.string().min(1),
  cwd: z.string().min(1),
  title: z.string().default(''),
  conversationId: z.string().min(1).nullable().default(null),
  family: z.enum(['pinned', 'discovered']).nullable().default(null),
  bypass: z.boolean().default(false),
  createdAt: z.string().min(1),
});

const WindowRecordSchema = z.looseObject({
  id: z.string().min(1),
  tabs: z.array(z.string()).default([]),
  activeTab: z.string().nullable().default(null),
});

const FileSchema = z.looseObject({
  version: z.literal(STATE_VERSION),
  windows: z.array(z.unknown()),
  sessions: z.array(z.unknown()),
  unreadable: z.array(z.unknown()).default([]),
});

export type SessionRecord = z.infer<typeof SessionRecordSchema>;
export type WindowRecord = z.infer<typeof WindowRecordSchema>;
/** What addSession needs; the rest defaults (no title, unbound, bypass off, created now). */
export type NewSessionRecord = Pick<SessionRecord, 'id' | 'agentId' | 'cwd'> &
  Partial<Pick<SessionRecord, 'title' | 'conversationId' | 'family' | 'bypass' | 'createdAt'>>;
/** A session entry that could not be read; kept verbatim so a later version (or a human) can recover it. */
export interface UnreadableEntry {
  entry: unknown;
  reason: string;
}
export interface TermioState {
  version: typeof STATE_VERSION;
  windows: WindowRecord[];
  sessions: SessionRecord[];
  unreadable: UnreadableEntry[];
  [unknownField: string]: unknown;
}

export type StateProblem = {
  kind: 'stateCorrupt' | 'stateUnreadable' | 'stateTooNew';
  file: string;
  /** Where the file was moved; null when it could not be moved (then the store never writes). */
  movedTo: string | null;
  message: string;
};

/**
 * Migrations from older file versions, keyed by the version they read. Each returns the next
 * version's shape. A file without a version field is version 0.
 */
export const STATE_MIGRATIONS: Record<number, (old: Record<string, unknown>) => Record<string, unknown>> = {
  // v0 (hypothetical, shows the path): { tabs: [{ agent, cwd, title?, conversation?, yolo?, created? }] },
  // one implicit window, no session ids.
  0: (old) => {
    const tabs = Array.isArray(old.tabs) ? old.tabs : [];
    const sessions = tabs.map((t: unknown, i: number) => {
      const tab = (t && typeof t === 'object' ? t : {}) as Record<string, unknown>;
      const { agent, conversation, yolo, created, ...rest } = tab;
      return {
        ...rest,
        id: `migrated-${i + 1}`,
        agentId: agent,
        conversationId: conversation ?? null,
        family: null,
        bypass: yolo === true,
        createdAt: typeof created === 'string' ? created : new Date(0).toISOString(),
      };
    });
    return { version: 1, windows: [{ id: 'window-1', tabs: sessions.map((s) => s.id), activeTab: null }], sessions };
  },
};

export interface StateStoreOptions {
  file: string;
  /** Write delay after a change; tests shorten it. */
  writeDelayMs?: number;
  logger?: Logger;
  /** Clock for moved-aside names and savedAt (tests). */
  now?: () => Date;
}

export interface OpenedStateStore {
  store: StateStore;
  /** The file could not be used; the app shows this. */
  problem: StateProblem | null;
  /** Parts of the file that were not restored or were repaired; the app shows these too. */
  warnings: string[];
}

export function emptyState(): TermioState {
  return { version: STATE_VERSION, windows: [], sessions: [], unreadable: [] };
}

const stamp = (d: Date) => d.toISOString().replace(/[:.]/g, '-');

export class StateStore {
  private current: TermioState;
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  private disposed = false;
  private readonly delay: number;
  private readonly logger: Logger;
  private readonly now: () => Date;
  /** Number of completed writes (tests and benchmarks). */
  writes = 0;

  private constructor(
    readonly file: string,
    state: TermioState,
    /** True when the existing file could not be read nor moved aside: writing would destroy it. */
    readonly readOnly: boolean,
    opts: StateStoreOptions,
  ) {
    this.current = state;
    this.delay = opts.writeDelayMs ?? STATE_WRITE_DELAY_MS;
    this.logger = opts.logger ?? nullLogger;
    this.now = opts.now ?? (() => new Date());
  }

  /** Reads (and migrates) the file; never throws for anything a file on disk can contain. */
  static open(opts: StateStoreOptions): OpenedStateStore {
    const logger = opts.logger ?? nullLogger;
    const now = opts.now ?? (() => new Date());
    const file = opts.file;
    mkdirSync(dirname(file), { recursive: true });
    removeStaleTempFiles(file, logger);
    const loaded = loadState(file, now, logger);
    if (loaded.problem) logger.error('state: file not restored', { ...loaded.problem });
    for (const w of loaded.warnings) logger.warn(`state: ${w}`);
    const store = new StateStore(file, loaded.state, loaded.readOnly, opts);
    // Repairs and migrations are written back once, so the file on disk matches what runs.
    if (loaded.rewrite) store.schedule();
    return { store, problem: loaded.problem, warnings: loaded.warnings };
  }

  /** The current state. Treat as read-only; change it through update() or the named operations. */
  get state(): Readonly<TermioState> {
    return this.current;
  }

  getSession(id: string): SessionRecord | undefined {
    return this.current.sessions.find((s) => s.id === id);
  }

  /** Applies a change and schedules a write (or writes at once with immediate). */
  update(change: (draft: TermioState) => void, opts: { immediate?: boolean } = {}): void {
    if (this.disposed) throw new Error(`StateStore(${this.file}): update after dispose`);
    const draft = structuredClone(this.current);
    change(draft);
    this.current = draft;
    this.dirty = true;
    if (opts.immediate) this.flush();
    else this.schedule();
  }

  addWindow(id: string): void {
    this.update((s) => {
      if (s.windows.some((w) => w.id === id)) throw new Error(`StateStore: window ${id} exists`);
      s.windows.push({ id, tabs: [], activeTab: null });
    });
  }

  /** Removes a window and (the user closed them with it) its sessions. */
  removeWindow(id: string): void {
    this.update((s) => {
      const w = s.windows.find((x) => x.id === id);
      if (!w) return;
      s.windows = s.windows.filter((x) => x !== w);
      s.sessions = s.sessions.filter((x) => !w.tabs.includes(x.id));
    });
  }

  /** Adds a session as a tab of a window (created if missing) at index (default: last). */
  addSession(
    record: NewSessionRecord,
    where: { windowId: string; index?: number },
    opts: { immediate?: boolean } = {},
  ): SessionRecord {
    // Field order as in the schema, so a saved file reads the same before and after a reload.
    const { id, agentId, cwd, ...rest } = record;
    const full: SessionRecord = {
      id, agentId, cwd, title: '', conversationId: null, family: null, bypass: false, createdAt: this.now().toISOString(), ...rest,
    };
    this.update((s) => {
      if (s.sessions.some((x) => x.id === full.id)) throw new Error(`StateStore: session ${full.id} exists`);
      let w = s.windows.find((x) => x.id === where.windowId);
      if (!w) {
        w = { id: where.windowId, tabs: [], activeTab: null };
        s.windows.push(w);
      }
      s.sessions.push(full);
      w.tabs.splice(where.index ?? w.tabs.length, 0, full.id);
    }, opts);
    return full;
  }

  /** Changes a session's persisted fields (title, bypass, cwd, …). Unknown ids are a bug. */
  updateSession(id: string, patch: Partial<Omit<SessionRecord, 'id'>>, opts: { immediate?: boolean } = {}): void {
    this.update((s) => {
      const rec = s.sessions.find((x) => x.id === id);
      if (!rec) throw new Error(`StateStore: no session ${id}`);
      Object.assign(rec, patch);
    }, opts);
  }

  /**
   * Binds a session to a conversation and writes at once: a binding lost in a crash would make
   * the next launch start fresh instead of resuming.
   */
  bindConversation(id: string, conversationId: string | null, family: SessionRecord['family']): void {
    this.updateSession(id, { conversationId, family }, { immediate: true });
  }

  /** The user closed the session: it is gone from the state and will not come back. */
  removeSession(id: string): void {
    this.update((s) => {
      s.sessions = s.sessions.filter((x) => x.id !== id);
      for (const w of s.windows) {
        w.tabs = w.tabs.filter((t) => t !== id);
        if (w.activeTab === id) w.activeTab = null;
      }
    });
  }

  /** Moves a tab to index of a window (possibly another one). */
  moveTab(id: string, windowId: string, index: number): void {
    this.update((s) => {
      const to = s.windows.find((w) => w.id === windowId);
      if (!to) throw new Error(`StateStore: no window ${windowId}`);
      for (const w of s.windows) w.tabs = w.tabs.filter((t) => t !== id);
      to.tabs.splice(Math.max(0, Math.min(index, to.tabs.length)), 0, id);
    });
  }

  /** Writes now if anything changed (synchronously: it must also work while the app quits). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty || this.readOnly) return;
    this.dirty = false;
    try {
      writeFileAtomic(this.file, serialize(this.current, this.now()), { mode: 0o600 });
      this.writes++;
    } catch (e) {
      // A full disk or a revoked folder must not crash the app; the next change retries.
      this.dirty = true;
      this.logger.error('state: write failed', { file: this.file, error: (e as Error).message });
    }
  }

  /** Flushes pending changes and stops the timer. */
  dispose(): void {
    if (this.disposed) return;
    this.flush();
    this.disposed = true;
  }

  private schedule(): void {
    this.dirty = true;
    if (this.timer || this.readOnly) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.delay);
  }
}

function serialize(state: TermioState, now: Date): string {
  return `${JSON.stringify({ ...state, version: STATE_VERSION, savedAt: now.toISOString() }, null, 2)}\n`;
}

/** Temp files left by a process that died mid-write (its pid no longer runs). */
function removeStaleTempFiles(linkOrFile: string, logger: Logger): void {
  let file: string;
  let names: string[];
  try {
    // Temp files lie beside the file writes land in (a symlinked state file's target).
    file = writeTarget(linkOrFile);
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  const prefix = `${basename(file)}.tmp-`;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) continue;
    try {
      rmSync(join(dirname(file), name), { force: true });
      logger.info('state: removed a temp file left by an interrupted write', { name });
    } catch {
      // Leaving it costs nothing.
    }
  }
}

interface Loaded {
  state: TermioState;
  problem: StateProblem | null;
  warnings: string[];
  readOnly: boolean;
  rewrite: boolean;
}

function loadState(file: string, now: () => Date, logger: Logger): Loaded {
  const fresh = (problem: StateProblem | null, readOnly = false): Loaded => ({ state: emptyState(), problem, warnings: [], readOnly, rewrite: false });
  const moveAside = (kind: StateProblem['kind'], suffix: string, why: string): Loaded => {
    const target = `${file}.${suffix}-${stamp(now())}`;
    try {
      renameSync(file, target);
      return fresh({ kind, file, movedTo: target, message: `${file} ${why}; it was moved to ${basename(target)} and Termio started with no saved sessions.` });
    } catch (e) {
      logger.error('state: could not move the file aside', { file, error: (e as Error).message });
      return fresh(
        { kind, file, movedTo: null, message: `${file} ${why} and could not be moved aside (${(e as Error).message}); Termio started with no saved sessions and will not write over it.` },
        true,
      );
    }
  };

  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) return moveAside('stateUnreadable', 'corrupt', 'is not a regular file');
    if (st.size > MAX_STATE_BYTES) return moveAside('stateCorrupt', 'corrupt', `is ${st.size} bytes, larger than any Termio state (${MAX_STATE_BYTES})`);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') return fresh(null);
    return moveAside('stateUnreadable', 'corrupt', `could not be read (${err.code ?? err.message})`);
  }

  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return moveAside('stateCorrupt', 'corrupt', `is not valid JSON (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return moveAside('stateCorrupt', 'corrupt', 'does not hold a JSON object');

  let obj = raw as Record<string, unknown>;
  let version = obj.version === undefined ? 0 : obj.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    return moveAside('stateCorrupt', 'corrupt', `has an invalid version ${JSON.stringify(obj.version)}`);
  }
  if (version > STATE_VERSION) {
    return moveAside('stateTooNew', `v${version}`, `was written by a newer Termio (state version ${version}, this one reads ≤ ${STATE_VERSION})`);
  }
  const migrated = version < STATE_VERSION;
  try {
    while (version < STATE_VERSION) {
      const step = STATE_MIGRATIONS[version];
      if (!step) return moveAside('stateCorrupt', 'corrupt', `has version ${version}, which no migration reads`);
      obj = step(obj);
      version++;
    }
  } catch (e) {
    return moveAside('stateCorrupt', 'corrupt', `could not be migrated from version ${version} (${(e as Error).message})`);
  }

  const top = FileSchema.safeParse(obj);
  if (!top.success) {
    return moveAside('stateCorrupt', 'corrupt', `does not have the shape of a Termio state (${z.prettifyError(top.error).replace(/\n/g, ' ')})`);
  }
  const { state, warnings } = repair(top.data as unknown as { windows: unknown[]; sessions: unknown[]; unreadable: unknown[] } & Record<string, unknown>);
  if (migrated) logger.info('state: migrated', { file, to: STATE_VERSION });
  return { state, problem: null, warnings, readOnly: false, rewrite: migrated || warnings.length > 0 };
}

/** Validates entries one by one and fixes references; see the header for what happens to each kind of damage. */
function repair(file: { windows: unknown[]; sessions: unknown[]; unreadable: unknown[] } & Record<string, unknown>): { state: TermioState; warnings: string[] } {
  const warnings: string[] = [];
  const { savedAt: _savedAt, ...rest } = file;
  const unreadable: UnreadableEntry[] = file.unreadable.map((u) =>
    u && typeof u === 'object' && 'entry' in u && 'reason' in u ? (u as UnreadableEntry) : { entry: u, reason: 'unknown' },
  );
  const sessions: SessionRecord[] = [];
  for (const entry of file.sessions) {
    const r = SessionRecordSchema.safeParse(entry);
    const label = entry && typeof entry === 'object' && 'id' in entry ? `session ${JSON.stringify((entry as { id: unknown }).id)}` : 'a session entry';
    if (!r.success) {
      const reason = z.prettifyError(r.error).replace(/\n/g, ' ');
      unreadable.push({ entry, reason });
      warnings.push(`${label} could not be read and was not restored (kept in the file): ${reason}`);
    } else if (sessions.some((s) => s.id === r.data.id)) {
      unreadable.push({ entry, reason: 'duplicate session id' });
      warnings.push(`${label} appears twice; the second entry was not restored (kept in the file)`);
    } else {
      sessions.push(r.data);
    }
  }
  const windows: WindowRecord[] = [];
  const listed = new Set<string>();
  for (const entry of file.windows) {
    const r = WindowRecordSchema.safeParse(entry);
    if (!r.success) {
      warnings.push(`a window entry could not be read (${z.prettifyError(r.error).replace(/\n/g, ' ')}); its sessions are kept in another window`);
      continue;
    }
    const w = r.data;
    w.tabs = w.tabs.filter((t) => {
      if (listed.has(t)) {
        warnings.push(`session ${JSON.stringify(t)} was listed in two places; kept the first`);
        return false;
      }
      if (!sessions.some((s) => s.id === t)) {
        warnings.push(`a tab named session ${JSON.stringify(t)}, which is not in the file; the tab was removed`);
        return false;
      }
      listed.add(t);
      return true;
    });
    if (w.activeTab !== null && !w.tabs.includes(w.activeTab)) w.activeTab = null;
    windows.push(w);
  }
  const orphans = sessions.filter((s) => !listed.has(s.id));
  if (orphans.length > 0) {
    let w = windows.at(-1);
    if (!w) {
      w = { id: 'window-recovered', tabs: [], activeTab: null };
      windows.push(w);
    }
    for (const s of orphans) {
      w.tabs.push(s.id);
      warnings.push(`session ${JSON.stringify(s.id)} was in no window; it was added to window ${JSON.stringify(w.id)}`);
    }
  }
  return { state: { ...rest, version: STATE_VERSION, windows, sessions, unreadable }, warnings };
}
