// The indexing worker: a worker thread that runs the history indexer (historyIndexer.ts) — the
// stores' watchers and every write to the index — with its own connection to the database, so
// none of it runs on the host's loop. The host (historyThread.ts) sends it the stores to watch and
// the end; it answers its progress, at most every PROGRESS_MS and at once when it goes idle,
// and sends what it would log to the host's log.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../../services/log';
import { HistoryIndex } from './historyIndex';
import { HistoryIndexer, historySources, type HistorySourceSpec, type IndexProgress } from './historyIndexer';

/** Host → worker: stores to watch (numbered, so the host knows when it was heard), or the end. */
export type ToIndexWorker = { t: 'watch'; n: number; specs: HistorySourceSpec[] } | { t: 'close' };
/** Worker → host: its progress as of the watch message `n`, or a line for the host's log. */
export type FromIndexWorker = { n: number; progress: IndexProgress } | { warn: string; data?: Record<string, unknown> };

/** Progress is reported this often at most while files are read (the host's status and search notes). */
const PROGRESS_MS = 100;

/** On Linux a thread has its own nice value: this one's is the lowest, so a busy first index
 *  always gives way to the host's loop (and to everything else on the machine). Elsewhere
 *  (macOS has no /proc) the thread keeps the host's priority. */
function yieldToOthers(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, 19);
  } catch {
    // No per-thread priority here: the worker still runs off the host's loop.
  }
}

const port = parentPort;
if (port) {
  yieldToOthers();
  const { file, home } = workerData as { file: string; home: string };
  const send = (m: FromIndexWorker) => port.postMessage(m);
  const warn = (msg: string, data?: Record<string, unknown>) => send({ warn: msg, data: data || undefined });
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn, error: warn };
  const index = new HistoryIndex(file, logger, { checked: true });
  let heard = 0;
  let timer: NodeJS.Timeout | null = null;
  const report = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    send({ n: heard, progress: indexer.progress() });
  };
  const indexer: HistoryIndexer = new HistoryIndexer(index, logger, () => {
    if (indexer.isIdle()) report();
    else timer ??= setTimeout(report, PROGRESS_MS);
  });
  port.on('message', (m: ToIndexWorker) => {
    if (m.t === 'watch') {
      heard = m.n;
      indexer.watch(historySources(m.specs, home));
      return report();
    }
    if (timer) clearTimeout(timer);
    void indexer.dispose().then(() => {
      index.close();
      port.close();
    });
  });
}
