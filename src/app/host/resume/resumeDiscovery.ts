// Discovered-family binding: after a fresh launch, watch discover.root for a NEW record whose cwd
// is the session's cwd and bind it once, by one of two kinds of evidence, each unambiguous:
// - held open: the session's own processes hold the record open (Codex keeps its rollout file open
//   for the whole conversation); the session holds one candidate and one session holds it;
// - written and closed (closedRecordRule.ts): the record is the one new record of the folder, the
//   session is the only one waiting in that folder, and no other process of that agent runs there
//   (nor ran when the record appeared). Two tabs in one folder never bind this way.
// An agent started in another terminal in the same folder writes a record no tab holds, in a
// folder where another process of the agent runs, so nothing binds it. Anything else waits for a
// hook to report the conversation id (settle()), as does every record where processes or open
// files cannot be read. Only records that appear after the watcher is ready are read, and only
// their head.
import type { Disposable } from '../../../protocol/events';
import { readdir } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { realpath } from 'node:fs';
import chokidar, { type FSWatcher } from 'chokidar';
import { storeWatchBase } from './storeWatch';
import { openFiles, processesInFolder, processTrees, realPathOf, type FolderProcess } from './processTree';
import { judgeClosedRecord } from './closedRecordRule';
import { expandHome } from '../../../protocol/homePath';
import type { DiscoverInput } from '../../../protocol/resumePlan';
import { parseDiscoveredRecord, type RecordProblem } from '../../../protocol/resumeRecord';
import { nullLogger, type Logger } from '../../services/log';
import { readRecordHead } from './recordHead';

/** How far below discover.root records sit: Codex uses root/YYYY/MM/DD/file (3); one spare level. */
export const MAX_DISCOVER_DEPTH = 4;

/**
 * A record file older than the launch by more than this was not made by it (a file moved or
 * restored into the store). Covers coarse file-system timestamps (1 s on HFS+) plus clock rounding.
 */
export const RECORD_TIME_SLACK_MS = 2000;

/** After a folder appears below a root, when it is listed again for files the watcher missed:
 *  well past the watcher's own set-up of the folder, well under a person's wait for a bind. */
const NEW_FOLDER_RESCAN_MS = 250;

/** Re-reads of a record whose first line is still being written, before it is given up on. */
const MAX_INCOMPLETE_RETRIES = 20;
/** A record caught half-written is read again after this even without a change event (the
 *  watcher can miss the write that follows a file's creation); 20 tries × 100 ms = 2 s in all. */
const INCOMPLETE_RETRY_MS = 100;

export interface DiscoveryBinding {
  sessionId: string;
  conversationId: string;
  recordPath: string;
}

export interface DiscoveryOptions {
  home: string;
  logger?: Logger;
  /** The session bound to a conversation id, if any (from the state store), so no id is bound twice. */
  boundSessionOf: (conversationId: string) => string | null;
  /** The pid of a session's agent (undefined: not running yet, or gone). Its process tree must hold the record open. */
  processOf: (sessionId: string) => number | undefined;
  onBind: (binding: DiscoveryBinding) => void;
}

export interface TrackRequest {
  sessionId: string;
  cwd: string;
  discover: DiscoverInput;
  /** The manifest command's program (name or path): how other processes of the agent are known. */
  program?: string;
}

interface Pending {
  sessionId: string;
  cwd: string;
  root: string;
  launchedAt: number;
  program?: string;
}

/** While a waiting session's agent pid is not known yet, its candidates are looked at again this
 *  often (a record written and closed brings no later event), for at most this many times. */
const PID_RECHECK_MS = 100;
const MAX_PID_RECHECKS = 100;

interface SeenRecord {
  path: string;
  /** The path with symlinks resolved, as the kernel names an open file. */
  realPath: string;
  root: string;
  id: string;
  cwd: string;
  /** When the watcher saw the file appear (≥ its creation). */
  seenAt: number;
  /** The earlier of the file's birth and modification times. */
  fileTime: number;
  /** The processes in its folder when it was read (null: not read, or could not be). */
  inFolder: FolderProcess[] | null;
}

interface RootWatch {
  watcher: FSWatcher;
  ready: Promise<void>;
  spec: DiscoverInput;
  users: number;
  incomplete: Map<string, number>;
  /** Records being read; true when another event came meanwhile and they must be read again. */
  reading: Map<string, boolean>;
  retryTimers: Set<NodeJS.Timeout>;
  /** Files read to the end of their story (a record, or skipped with a reason): a rescan leaves them. */
  settled: Set<string>;
}

export class ResumeDiscovery {
  private readonly roots = new Map<string, RootWatch>();
  private readonly pending = new Map<string, Pending>();
  private records: SeenRecord[] = [];
  /** Conversation ids bound by this service or settled by hooks in this run. */
  private readonly claimed = new Set<string>();
  /** Roots opened by warm(): held open until dispose. */
  private readonly warmed = new Set<string>();
  private readonly logger: Logger;
  private disposed = false;
  /** Sessions and records whose written-and-closed verdict was logged (once each). */
  private readonly noted = new Set<string>();
  private pidRecheck: NodeJS.Timeout | null = null;
  private pidRechecks = 0;

  constructor(private readonly opts: DiscoveryOptions) {
    this.logger = opts.logger ?? nullLogger;
  }

  /**
   * Starts watching for the session's record. Resolves once the watcher is ready; launch the
   * agent after that (the launch time is taken when this resolves). Dispose the result when the
   * session closes or its agent exits.
   */
  async track(req: TrackRequest): Promise<Disposable & { launchedAt: number }> {
    if (this.disposed) throw new Error('ResumeDiscovery: track after dispose');
    if (this.pending.has(req.sessionId)) throw new Error(`ResumeDiscovery: session ${req.sessionId} is already tracked`);
    const root = resolve(expandHome(req.discover.root, this.opts.home));
    const cwd = await canonical(req.cwd);
    const w = this.watchRoot(root, req.discover);
    await w.ready;
    const launchedAt = Date.now();
    this.pending.set(req.sessionId, { sessionId: req.sessionId, cwd, root, launchedAt, program: req.program });
    let done = false;
    return {
      launchedAt,
      dispose: () => {
        if (done) return;
        done = true;
        this.untrack(req.sessionId);
      },
    };
  }

  /**
   * Opens the watcher of a root ahead of any launch and keeps it open until dispose. chokidar
   * walks the existing tree once when a watcher opens (~0.6 s for 5,000 old records here), so an
   * app can call this at start for each discovered agent and later launches wait for nothing.
   */
  async warm(discover: DiscoverInput): Promise<void> {
    if (this.disposed) throw new Error('ResumeDiscovery: warm after dispose');
    const root = resolve(expandHome(discover.root, this.opts.home));
    if (this.warmed.has(root)) return this.roots.get(root)?.ready;
    this.warmed.add(root);
    await this.watchRoot(root, discover).ready;
  }

  /** Is the session still waiting for its record? */
  isPending(sessionId: string): boolean {
    return this.pending.has(sessionId);
  }

  /**
   * A hook reported the session's conversation id: the session stops waiting, and the id (and
   * its record, if seen) is no longer a candidate for anyone else, which may settle a neighbour.
   */
  settle(sessionId: string, conversationId: string): void {
    this.claimed.add(conversationId);
    this.untrack(sessionId);
    this.evaluate();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pending.clear();
    if (this.pidRecheck) clearTimeout(this.pidRecheck);
    for (const w of this.roots.values()) closeRoot(w);
    this.roots.clear();
  }

  private untrack(sessionId: string): void {
    const p = this.pending.get(sessionId);
    if (!p) return;
    this.pending.delete(sessionId);
    const w = this.roots.get(p.root);
    if (w && --w.users === 0) {
      closeRoot(w);
      this.roots.delete(p.root);
      this.records = this.records.filter((r) => r.root !== p.root);
    }
  }

  /**
   * One chokidar watcher per root, shared by the sessions waiting on it. A root that does not
   * exist yet (the agent's first run) is watched from its nearest existing ancestor, following
   * only the path down to the root.
   */
  private watchRoot(root: string, spec: DiscoverInput): RootWatch {
    const existing = this.roots.get(root);
    if (existing) {
      existing.users++;
      return existing;
    }
    const { base, levelsToRoot, ignored } = storeWatchBase(root);
    const watcher = chokidar.watch(base, {
      ignoreInitial: true,
      depth: levelsToRoot + MAX_DISCOVER_DEPTH,
      followSymlinks: false,
      ignorePermissionErrors: true,
      ignored,
    });
    const w: RootWatch = {
      watcher,
      spec,
      users: 1,
      incomplete: new Map(),
      reading: new Map(),
      retryTimers: new Set(),
      settled: new Set(),
      ready: new Promise<void>((res) => watcher.once('ready', () => res())),
    };
    watcher.on('add', (path) => void this.handleFile(w, root, path, Date.now()));
    // chokidar lists a new folder, then starts watching it: what is made in between (an agent's
    // first record of the day, made with its folder in one go) is never reported, files and folders
    // alike. So each new folder is looked at again once. A folder on the way down to a root that did
    // not exist yet is looked at from the root: the agent's first run makes them all at once.
    watcher.on('addDir', (dir) => {
      const from = root.startsWith(dir.endsWith(sep) ? dir : dir + sep) ? root : dir;
      const timer = setTimeout(() => {
        w.retryTimers.delete(timer);
        if (this.roots.get(root) === w) void this.rescan(w, root, from, MAX_DISCOVER_DEPTH);
      }, NEW_FOLDER_RESCAN_MS);
      w.retryTimers.add(timer);
    });
    watcher.on('change', (path) => {
      if (w.incomplete.has(path) || w.reading.has(path)) void this.handleFile(w, root, path, Date.now());
      else if (this.records.some((r) => r.path === path)) this.recordChanged(path);
    });
    watcher.on('error', (e) => this.logger.warn('discovery: watcher error', { root, error: (e as Error).message }));
    this.roots.set(root, w);
    return w;
  }

  /**
   * Reads the files below a new folder that no record was read for yet, and has the watcher watch
   * the folders it missed, so that the next record in them is reported.
   */
  private async rescan(w: RootWatch, root: string, dir: string, depth: number, watched = new Set(Object.keys(w.watcher.getWatched()))): Promise<void> {
    const rel = relative(root, dir);
    if (depth < 0 || rel.startsWith('..') || isAbsolute(rel)) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // Gone again, or unreadable.
    }
    if (!watched.has(dir) && this.roots.get(root) === w) {
      this.logger.debug('discovery: watching a folder the watcher missed', { dir });
      w.watcher.add(dir);
    }
    for (const e of entries) {
      const path = resolve(dir, e.name);
      if (e.isDirectory()) await this.rescan(w, root, path, depth - 1, watched);
      else if (e.isFile() && !w.settled.has(path) && !w.reading.has(path) && !w.incomplete.has(path)) await this.handleFile(w, root, path, Date.now());
    }
  }

  /** Reads a record once at a time; an event during a read makes it read again afterwards. */
  private async handleFile(w: RootWatch, root: string, path: string, seenAt: number): Promise<void> {
    if (w.reading.has(path)) {
      w.reading.set(path, true);
      return;
    }
    w.reading.set(path, false);
    try {
      await this.readRecord(w, root, path, seenAt);
      if (!w.incomplete.has(path)) w.settled.add(path);
    } finally {
      const again = w.reading.get(path);
      w.reading.delete(path);
      if (again && this.roots.get(root) === w) void this.handleFile(w, root, path, seenAt);
    }
  }

  private async readRecord(w: RootWatch, root: string, path: string, seenAt: number): Promise<void> {
    const rel = relative(root, path);
    if (rel.startsWith('..') || isAbsolute(rel)) return;
    const read = await readRecordHead(path, w.spec.format, this.logger);
    if (!read) return;
    const parsed = parseDiscoveredRecord(read.text, w.spec);
    if (!parsed.ok) return this.recordNotReadable(w, root, path, seenAt, parsed);
    w.incomplete.delete(path);
    if (this.records.some((r) => r.path === path)) return this.recordChanged(path);
    const cwd = await canonical(parsed.cwd);
    if (!this.roots.has(root)) return; // Nobody waits on this root any more.
    // Who runs in the folder right now, while the record's writer surely still does.
    const inFolder = [...this.pending.values()].some((p) => p.root === root && p.cwd === cwd) ? processesInFolder(cwd) : null;
    this.records.push({ path, realPath: realPathOf(path), root, id: parsed.id, cwd, seenAt, fileTime: read.fileTime, inFolder });
    this.logger.debug('discovery: new record', { path, id: parsed.id, cwd });
    this.pidRechecks = 0; // A new record gets its own rechecks.
    this.evaluate();
  }

  /** A record being written to (an agent appends each turn): who holds it may be clear now. */
  private recordChanged(path: string): void {
    this.logger.debug('discovery: record changed', { path });
    this.evaluate();
  }

  /** A record that did not parse: read again soon if it may be half-written, else skipped. */
  private recordNotReadable(w: RootWatch, root: string, path: string, seenAt: number, parsed: RecordProblem): void {
    const tries = w.incomplete.get(path) ?? 0;
    // A json file or a jsonl line may be caught half-written; the next change event re-reads it.
    if ((parsed.kind === 'incomplete' || (parsed.kind === 'malformed' && w.spec.format === 'json')) && tries < MAX_INCOMPLETE_RETRIES) {
      w.incomplete.set(path, tries + 1);
      this.logger.debug('discovery: record not complete yet', { path, tries: tries + 1 });
      const timer = setTimeout(() => {
        w.retryTimers.delete(timer);
        if (w.incomplete.get(path) === tries + 1 && this.roots.get(root) === w) void this.handleFile(w, root, path, seenAt);
      }, INCOMPLETE_RETRY_MS);
      w.retryTimers.add(timer);
      return;
    }
    w.incomplete.delete(path);
    this.logger.info('discovery: skipped a record', { path, problem: parsed.kind, message: parsed.message });
  }

  /** A record can belong to a waiting session: same root and cwd, appeared after its launch, unbound. */
  private eligible(r: SeenRecord, p: Pending): boolean {
    return (
      r.root === p.root &&
      r.cwd === p.cwd &&
      r.seenAt >= p.launchedAt &&
      r.fileTime >= p.launchedAt - RECORD_TIME_SLACK_MS &&
      !this.claimed.has(r.id) &&
      this.opts.boundSessionOf(r.id) === null
    );
  }

  /** Each waiting session's running process tree, and the files it holds open (missing: cannot
   *  tell, or not running). */
  private scanSessions(): { trees: Map<string, number[]>; held: Map<string, Set<string>> } {
    const trees = new Map<string, number[]>();
    const held = new Map<string, Set<string>>();
    const pids = new Map<string, number>();
    for (const p of this.pending.values()) {
      const pid = this.opts.processOf(p.sessionId);
      if (pid !== undefined) pids.set(p.sessionId, pid);
    }
    const all = pids.size ? processTrees([...pids.values()]) : null;
    if (!all) return { trees, held };
    for (const [sessionId, pid] of pids) {
      const tree = all.get(pid) ?? [];
      trees.set(sessionId, tree);
      const files = openFiles(tree);
      if (files) held.set(sessionId, files);
    }
    return { trees, held };
  }

  /** Binds every session whose match is unambiguous both ways; repeats until nothing changes. */
  private evaluate(): void {
    const pendingWithCandidates = [...this.pending.values()].some((p) => this.records.some((r) => this.eligible(r, p)));
    const { trees, held } = pendingWithCandidates ? this.scanSessions() : { trees: new Map<string, number[]>(), held: new Map<string, Set<string>>() };
    const holds = (p: Pending, r: SeenRecord) => held.get(p.sessionId)?.has(r.realPath) ?? false;
    for (let changed = true; changed;) {
      changed = false;
      for (const p of [...this.pending.values()]) {
        const r = this.heldRecord(p, holds) ?? this.closedRecord(p, trees.get(p.sessionId), held);
        if (!r) continue;
        this.claimed.add(r.record.id);
        this.untrack(p.sessionId);
        this.logger.info('discovery: bound', { sessionId: p.sessionId, conversationId: r.record.id, path: r.record.path, by: r.by });
        this.opts.onBind({ sessionId: p.sessionId, conversationId: r.record.id, recordPath: r.record.path });
        changed = true;
      }
    }
    // A record no waiting session could claim never will: later sessions launch after it appeared.
    this.records = this.records.filter((r) => [...this.pending.values()].some((p) => r.root === p.root && r.seenAt >= p.launchedAt));
    this.recheckWhileNoPid();
  }

  /** The one record the session holds open, held by no other waiting session. */
  private heldRecord(p: Pending, holds: (p: Pending, r: SeenRecord) => boolean): { record: SeenRecord; by: 'held open' } | null {
    const candidates = this.records.filter((r) => this.eligible(r, p) && holds(p, r));
    if (candidates.length > 1)
      this.logger.info('discovery: the session holds several new records; waiting for a hook', {
        sessionId: p.sessionId,
        records: candidates.map((r) => r.path),
      });
    if (candidates.length !== 1) return null;
    const r = candidates[0]!;
    const claimants = [...this.pending.values()].filter((q) => this.eligible(r, q) && holds(q, r));
    return claimants.length === 1 ? { record: r, by: 'held open' } : null;
  }

  /** The one new record of the folder when the session is the only one waiting there, nobody
   *  holds it, and no other process of the agent runs in the folder (closedRecordRule.ts). */
  private closedRecord(p: Pending, tree: number[] | undefined, held: Map<string, Set<string>>): { record: SeenRecord; by: 'only agent in the folder' } | null {
    const candidates = this.records.filter((r) => this.eligible(r, p));
    if (candidates.length !== 1) return null;
    const r = candidates[0]!;
    if ([...held.values()].some((files) => files.has(r.realPath))) return null;
    const neighbours = [...this.pending.values()].filter((q) => q !== p && q.root === p.root && q.cwd === p.cwd);
    const verdict = neighbours.length
      ? ({ kind: 'neighbours', why: 'another tab waits in the same folder' } as const)
      : judgeClosedRecord({
          folder: p.cwd,
          agentPid: this.opts.processOf(p.sessionId),
          tree,
          program: p.program,
          seenWithRecord: r.inFolder,
          recordPath: r.realPath,
        });
    if (verdict.kind === 'clear') return { record: r, by: 'only agent in the folder' };
    const key = `${p.sessionId}\0${r.path}\0${verdict.kind}`;
    if (!this.noted.has(key)) {
      this.noted.add(key);
      this.logger.info('discovery: a record nobody holds open; waiting for a hook', { sessionId: p.sessionId, path: r.path, ...verdict });
    }
    return null;
  }

  /** A record written and closed brings no later event: while a waiting session with candidates
   *  has no known agent pid yet (its launch is under way), look again shortly. */
  private recheckWhileNoPid(): void {
    if (this.pidRecheck || this.disposed) return;
    const waiting = [...this.pending.values()].some((p) => this.opts.processOf(p.sessionId) === undefined && this.records.some((r) => this.eligible(r, p)));
    if (!waiting) {
      this.pidRechecks = 0;
      return;
    }
    if (this.pidRechecks++ >= MAX_PID_RECHECKS) return;
    this.pidRecheck = setTimeout(() => {
      this.pidRecheck = null;
      if (!this.disposed) this.evaluate();
    }, PID_RECHECK_MS);
  }
}

function closeRoot(w: RootWatch): void {
  for (const t of w.retryTimers) clearTimeout(t);
  w.retryTimers.clear();
  void w.watcher.close();
}

/** realpath when the folder exists (resolves symlinks, /var → /private/var on macOS), else normalized. */
function canonical(path: string): Promise<string> {
  return new Promise((res) => realpath.native(path, (err, real) => res(err ? resolve(path) : real)));
}
