// Keeps the conversation index current on this machine: watches the transcript files every
// agent's manifest names (history.paths, with chokidar as the rest of the host does), and reads
// each new or changed file into the index one file at a time, yielding between files. The host
// runs it in a worker thread of its own (historyWorker.ts, through IndexerThread in
// historyThread.ts): chokidar's first walk of thousands of transcripts (a watch per file) and
// SQLite's writes (the full-text index's merges and the WAL's checkpoints: tens of milliseconds a
// file, some over a hundred, once the index is large) then never run on the host's loop. A line
// that cannot be read is skipped with a warning; a file that cannot be read is logged.
import chokidar, { type FSWatcher } from 'chokidar';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compileHistoryGlob, TranscriptReader, type HistoryGlob, type TranscriptHints } from '../../../protocol/history';
import type { HistoryFormat, Manifest } from '../../../protocol/manifestSchema';
import type { Logger } from '../../services/log';
import { storeWatchBase } from '../resume/storeWatch';
import type { HistoryIndex } from './historyIndex';

/** A new folder is read again this long after chokidar reported it (its first files are made with it). */
const NEW_FOLDER_RESCAN_MS = 250;

/** Where an agent's manifest says its conversations are (as written: "~" not yet expanded). */
export interface HistorySourceSpec {
  agent: string;
  format: HistoryFormat;
  paths: string[];
}

/** An agent whose manifest says where its conversations are, its globs compiled. */
export interface HistorySource {
  agent: string;
  format: HistoryFormat;
  globs: HistoryGlob[];
}

export interface IndexProgress {
  /** Files are waiting to be read (a first index, or changes). */
  indexing: boolean;
  /** Files waiting now. */
  queued: number;
  /** Files read since the host started. */
  read: number;
  /** Every watched folder has been walked once. */
  scanned: boolean;
  files: number;
  conversations: number;
}

/** The stores these manifests declare. */
export function historySpecs(manifests: Manifest[]): HistorySourceSpec[] {
  return manifests.flatMap((m) => (m.history ? [{ agent: m.id, format: m.history.format, paths: m.history.paths }] : []));
}

/** The sources of these stores, "~" expanded against `home`. */
export function historySources(specs: HistorySourceSpec[], home: string): HistorySource[] {
  return specs.map((s) => ({ agent: s.agent, format: s.format, globs: s.paths.map((p) => compileHistoryGlob(p, home)) }));
}

/** What a file's name or neighbours say that the transcript does not: Gemini CLI keeps the folder in <project>/.project_root. */
async function hintsFor(format: HistoryFormat, path: string): Promise<TranscriptHints> {
  if (format !== 'gemini-jsonl') return {};
  const cwd = await readFile(join(dirname(dirname(path)), '.project_root'), 'utf8').catch(() => '');
  return cwd.trim() ? { cwd: cwd.trim() } : {};
}

export class HistoryIndexer {
  private readonly watchers: FSWatcher[] = [];
  private readonly queue = new Map<string, HistorySource>();
  private readonly roots = new Set<string>();
  private running: Promise<void> | null = null;
  private read = 0;
  private walking = 0;
  private disposed = false;
  private readonly idleWaiters: (() => void)[] = [];

  /** `changed`: called whenever what progress() says may have changed. */
  constructor(
    private readonly index: HistoryIndex,
    private readonly logger: Logger,
    private readonly changed: () => void = () => undefined,
  ) {}

  /** Starts watching these sources' folders (ones already watched are left as they are). */
  watch(sources: HistorySource[]): void {
    for (const source of sources) for (const glob of source.globs) this.watchGlob(source, glob);
  }

  private watchGlob(source: HistorySource, glob: HistoryGlob): void {
    const key = `${source.agent}\0${glob.glob}`;
    if (this.disposed || this.roots.has(key)) return;
    this.roots.add(key);
    this.walking++;
    // A store that does not exist yet (the agent has not run here) is watched from above.
    const { base, levelsToRoot, ignored } = storeWatchBase(glob.root);
    const watcher = chokidar.watch(base, {
      depth: glob.depth === Infinity ? undefined : glob.depth + levelsToRoot,
      followSymlinks: false,
      ignorePermissionErrors: true,
      ignored: (p, st) => ignored?.(p) === true || (st?.isFile() === true && !glob.matches(p)),
    });
    const queue = (p: string) => glob.matches(p) && this.enqueue(p, source);
    watcher.on('add', queue).on('change', queue);
    watcher.on('unlink', (p) => glob.matches(p) && this.index.remove(p));
    // chokidar lists a new folder, then watches it: a file made in between (an agent's first
    // conversation, made with its folder) is never reported, so a new folder is read once more.
    watcher.on('addDir', (dir) => {
      const timer = setTimeout(() => void this.rescan(watcher, dir, glob, queue), NEW_FOLDER_RESCAN_MS);
      timer.unref();
    });
    watcher.on('error', (e) => this.logger.warn('history: watcher error', { root: glob.root, error: (e as Error).message }));
    watcher.once('ready', () => {
      this.walking--;
      this.dropVanished(source.agent, glob);
      this.settle();
    });
    this.watchers.push(watcher);
  }

  /** Queues the matching files below a new folder, and watches the folders chokidar missed. */
  private async rescan(watcher: FSWatcher, dir: string, glob: HistoryGlob, queue: (p: string) => void): Promise<void> {
    if (this.disposed) return;
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    const watched = new Set(Object.keys(watcher.getWatched()));
    for (const e of entries) {
      const path = join(e.parentPath, e.name);
      if (e.isFile()) queue(path);
      else if (e.isDirectory() && !watched.has(path) && (glob.root === path || path.startsWith(`${glob.root}/`))) watcher.add(path);
    }
  }

  /** Files the index holds that the walk did not find: deleted while the host was not running. */
  private dropVanished(agent: string, glob: HistoryGlob): void {
    for (const f of this.index.files()) {
      if (f.agent !== agent || !glob.matches(f.path) || this.queue.has(f.path)) continue;
      void stat(f.path).catch(() => this.index.remove(f.path));
    }
  }

  private enqueue(path: string, source: HistorySource): void {
    this.queue.set(path, source);
    this.changed();
    this.running ??= this.drain().finally(() => {
      this.running = null;
      this.settle();
    });
  }

  /** One file at a time, the event loop free between files. */
  private async drain(): Promise<void> {
    while (!this.disposed && this.queue.size > 0) {
      const [path, source] = this.queue.entries().next().value as [string, HistorySource];
      this.queue.delete(path);
      try {
        await this.indexFile(path, source);
      } catch (e) {
        this.logger.warn('history: could not index a transcript', { path, error: (e as Error).message });
      }
      this.read++;
      this.changed();
      await nextTurn();
    }
  }

  private async indexFile(path: string, source: HistorySource): Promise<void> {
    const st = await stat(path).catch(() => null);
    if (!st?.isFile()) return this.index.remove(path);
    const known = this.index.fileState(path);
    if (known && known.size === st.size && known.mtime === st.mtimeMs) return;
    const [text, hints] = await Promise.all([readFile(path, 'utf8'), hintsFor(source.format, path)]);
    if (this.disposed) return;
    const reader = new TranscriptReader(source.format, hints);
    const lines = text.split('\n');
    // A last line without its newline may be one the agent is still writing: read it only if whole.
    const tail = lines.pop() ?? '';
    for (const line of lines) reader.line(line);
    if (tail.trim() && isJson(tail)) reader.line(tail);
    if (reader.problems.length > 0) {
      const first = reader.problems[0]!;
      this.logger.warn('history: skipped unreadable transcript lines', { path, count: reader.problems.length, line: first.line, problem: first.message });
    }
    this.index.put(path, source.agent, { size: st.size, mtime: st.mtimeMs }, reader.result());
  }

  progress(): IndexProgress {
    return {
      indexing: this.queue.size > 0 || this.running !== null,
      queued: this.queue.size,
      read: this.read,
      scanned: this.walking === 0,
      ...this.index.counts(),
    };
  }

  /** Resolves once every folder was walked and no file waits (tests and `history status --wait`). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  isIdle(): boolean {
    return this.walking === 0 && this.queue.size === 0 && this.running === null;
  }

  private settle(): void {
    this.changed();
    if (!this.isIdle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.watchers.map((w) => w.close()));
    await this.running;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
