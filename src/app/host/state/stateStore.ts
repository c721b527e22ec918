// Durable session state in $TERMIO_HOME/state/sessions.json (docs/architecture.md, "Where state lives"):
// windows, tab order and each session's agent, cwd, title, bound conversation and bypass flag.
// This module holds the state and writes it: debounced and atomic (temp file, fsync, rename).
// stateFile.ts reads it: it migrates old versions, and a file that cannot be read is moved aside
// and reported, never silently dropped or overwritten.
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
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic, writeTarget } from '../../services/atomicWrite';
import { nullLogger, type Logger } from '../../services/log';
import { isProcessAlive } from '../../services/processes';
import { loadState, STATE_VERSION, type SavedSession, type StateProblem, type TermioState } from './stateFile';

export {
  STATE_VERSION,
  MAX_STATE_BYTES,
  STATE_MIGRATIONS,
  emptyState,
  type SavedSession,
  type WindowRecord,
  type UnreadableEntry,
  type TermioState,
  type StateProblem,
} from './stateFile';

/**
 * Writes are coalesced: the first change after a write schedules the next one this much later,
 * and further changes ride along (so a title that changes 10×/s costs ≤ 4 writes/s, and a burst
 * such as restoring 20 sessions costs one).
 */
export const STATE_WRITE_DELAY_MS = 250;
/** A lazy change (a session's live title: an agent's spinner changes it several times a second)
 *  waits this long for its write, riding along with any sooner one: twenty busy agents otherwise
 *  rewrite and fsync the file four times a second for a cosmetic field. */
export const STATE_LAZY_WRITE_DELAY_MS = 5_000;
/** After a failed write (a full disk), the first retry; each further failure doubles the wait up
 *  to STATE_RETRY_MAX_MS, so freed space is used within a minute without hammering a full disk. */
export const STATE_RETRY_FIRST_MS = 1_000;
export const STATE_RETRY_MAX_MS = 60_000;

/** What addSession needs; the rest defaults (no title, unbound, bypass off, created now). */
export type NewSavedSession = Pick<SavedSession, 'id' | 'agentId' | 'cwd'> &
  Partial<Pick<SavedSession, 'title' | 'conversationId' | 'family' | 'bypass' | 'createdAt'>>;

export interface StateStoreOptions {
  file: string;
  /** Write delay after a change; tests shorten it. */
  writeDelayMs?: number;
  /** Write delay after a lazy change (default STATE_LAZY_WRITE_DELAY_MS); tests shorten it. */
  lazyWriteDelayMs?: number;
  /** First retry after a failed write (default STATE_RETRY_FIRST_MS); tests shorten it. */
  retryFirstMs?: number;
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

export class StateStore {
  private current: TermioState;
  private timer: NodeJS.Timeout | null = null;
  /** When the scheduled write is due (Date.now() time). */
  private timerDue = 0;
  private dirty = false;
  private disposed = false;
  private readonly delay: number;
  private readonly lazyDelay: number;
  private readonly retryFirst: number;
  /** The wait before the next retry of a failed write; 0 while writes succeed. */
  private retryIn = 0;
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
    this.lazyDelay = opts.lazyWriteDelayMs ?? STATE_LAZY_WRITE_DELAY_MS;
    this.retryFirst = opts.retryFirstMs ?? STATE_RETRY_FIRST_MS;
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

  getSession(id: string): SavedSession | undefined {
    return this.current.sessions.find((s) => s.id === id);
  }

  /** Applies a change and schedules a write (or writes at once with immediate). */
  update(change: (draft: TermioState) => void, opts: { immediate?: boolean; lazy?: boolean } = {}): void {
    if (this.disposed) throw new Error(`StateStore(${this.file}): update after dispose`);
    const draft = structuredClone(this.current);
    change(draft);
    this.current = draft;
    this.dirty = true;
    if (opts.immediate) this.flush();
    else this.schedule(opts.lazy ? this.lazyDelay : this.delay);
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
  addSession(record: NewSavedSession, where: { windowId: string; index?: number }, opts: { immediate?: boolean } = {}): SavedSession {
    // Field order as in the schema, so a saved file reads the same before and after a reload.
    const { id, agentId, cwd, ...rest } = record;
    const full: SavedSession = {
      id,
      agentId,
      cwd,
      title: '',
      conversationId: null,
      family: null,
      bypass: false,
      createdAt: this.now().toISOString(),
      ...rest,
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
  updateSession(id: string, patch: Partial<Omit<SavedSession, 'id'>>, opts: { immediate?: boolean; lazy?: boolean } = {}): void {
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
  bindConversation(id: string, conversationId: string | null, family: SavedSession['family']): void {
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
      if (this.retryIn) this.logger.info('state: written again after failed writes', { file: this.file });
      this.retryIn = 0;
    } catch (e) {
      // A full disk or a revoked folder must not crash the app; the write is retried later by
      // itself (not only on the next change), logged once until it succeeds.
      this.dirty = true;
      if (!this.retryIn) this.logger.error('state: write failed; retrying until it succeeds', { file: this.file, error: (e as Error).message });
      this.retryIn = this.retryIn ? Math.min(this.retryIn * 2, STATE_RETRY_MAX_MS) : this.retryFirst;
      if (!this.disposed) {
        this.timer = setTimeout(() => this.flush(), this.retryIn);
        this.timer.unref();
        // No change brings the retry forward: a full disk is not hammered.
        this.timerDue = 0;
      }
    }
  }

  /** Flushes pending changes and stops the timer. */
  dispose(): void {
    if (this.disposed) return;
    this.flush();
    this.disposed = true;
  }

  /** Writes `ms` from now, or sooner when a write is already due sooner. */
  private schedule(ms = this.delay): void {
    this.dirty = true;
    if (this.readOnly) return;
    const due = Date.now() + ms;
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, ms);
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
