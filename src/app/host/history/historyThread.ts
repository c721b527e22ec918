// The history indexer as the host runs it: in a worker thread (historyWorker.ts) with its own
// connection to the index, so the first walk of thousands of transcripts and every write never
// hold the host's loop; searches read the index on the host's own connection meanwhile (WAL: a
// reader never waits for the writer). When the worker's script is not built (the host run from its
// TypeScript sources, as some tests do) the indexer runs on the host's loop instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../services/log';
import type { HistoryIndex } from './historyIndex';
import { HistoryIndexer, historySources, type HistorySourceSpec, type IndexProgress } from './historyIndexer';
import type { FromIndexWorker, ToIndexWorker } from './historyWorker';

/** What the history service needs of an indexer, wherever it runs. */
export interface Indexing {
  /** Starts watching these stores (ones already watched are left as they are). */
  watch(specs: HistorySourceSpec[]): void;
  progress(): IndexProgress;
  /** Resolves once every store was walked and no file waits. */
  idle(): Promise<void>;
  dispose(): Promise<void>;
}

/** The worker's script: tsc's output beside this module, or beside the bundled host
 *  (dist/app/host/hostMain.js); null when the host runs from its TypeScript sources. */
function workerScript(): string | null {
  return [join(__dirname, 'historyWorker.js'), join(__dirname, 'history', 'historyWorker.js')].find((p) => existsSync(p)) ?? null;
}

/** The indexer in its worker when it is built, else on this loop. */
export function startIndexing(index: HistoryIndex, file: string, home: string, logger: Logger): Indexing {
  const script = workerScript();
  if (script) return new IndexerThread(index, script, file, home, logger);
  const indexer = new HistoryIndexer(index, logger);
  return {
    watch: (specs) => indexer.watch(historySources(specs, home)),
    progress: () => indexer.progress(),
    idle: () => indexer.idle(),
    dispose: () => indexer.dispose(),
  };
}

class IndexerThread implements Indexing {
  private readonly thread: Worker;
  /** The last progress the worker reported (the host's loop reads nothing of the index for it),
   *  and the watch message it had heard by then. */
  private last: IndexProgress;
  private heard = 0;
  private sent = 0;
  private exited = false;
  private readonly waiters: (() => void)[] = [];

  constructor(index: HistoryIndex, script: string, file: string, home: string, logger: Logger) {
    this.last = { indexing: false, queued: 0, read: 0, scanned: false, ...index.counts() };
    this.thread = new Worker(script, { workerData: { file, home } });
    this.thread.on('message', (m: FromIndexWorker) => {
      if ('warn' in m) return logger.warn(m.warn, m.data);
      [this.last, this.heard] = [m.progress, m.n];
      this.settle();
    });
    this.thread.on('error', (e) => logger.warn('history: the indexing worker failed; the index is no longer kept current', { error: e.message }));
    this.thread.on('exit', () => {
      this.exited = true;
      this.settle();
    });
  }

  watch(specs: HistorySourceSpec[]): void {
    this.thread.postMessage({ t: 'watch', n: ++this.sent, specs } satisfies ToIndexWorker);
  }

  progress(): IndexProgress {
    return this.last;
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.exited || (this.heard === this.sent && this.last.scanned && !this.last.indexing);
  }

  private settle(): void {
    if (this.isIdle()) for (const w of this.waiters.splice(0)) w();
  }

  async dispose(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.thread.once('exit', resolve));
    this.thread.postMessage({ t: 'close' } satisfies ToIndexWorker);
    await exited;
  }
}
