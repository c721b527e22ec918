// This machine's conversation history: the index (historyIndex.ts) kept current by the indexer
// (historyIndexer.ts, in a worker thread: historyThread.ts) over the stores every agent's manifest declares, and the answers the
// history verbs give from it: search results, conversations by id, usage with estimated cost.
import { join } from 'node:path';
import type { HistoryResult } from '../../../protocol/controlHistory';
import { ftsQuery, groupBest, snippetHits, sumUsage, type PriceTable, type UsageGroup } from '../../../protocol/history';
import type { AgentCatalog } from '../../services/catalog';
import type { Logger } from '../../services/log';
import { ensureDir } from '../../services/paths';
import { HIT_END, HIT_START, HistoryIndex, type IndexedConversation, type TurnHit } from './historyIndex';
import { historySpecs, type IndexProgress } from './historyIndexer';
import { startIndexing, type Indexing } from './historyThread';

/** Matching lines kept per conversation. */
const LINES_PER_RESULT = 3;
/** Turns asked of the index per conversation wanted: enough that a few busy conversations do not crowd out the rest. */
const TURNS_PER_RESULT = 10;
/** Conversations a search shows unless it asks for another number. */
export const DEFAULT_RESULTS = 20;

export interface HistoryServiceOptions {
  /** The host's state folder: the index is history.sqlite there. */
  stateDir: string;
  catalog: AgentCatalog;
  home: string;
  logger: Logger;
}

export class HistoryService {
  private readonly index: HistoryIndex;
  private readonly indexer: Indexing;
  private readonly stopWatchingCatalog: () => void;

  constructor(o: HistoryServiceOptions) {
    const file = join(ensureDir(o.stateDir), 'history.sqlite');
    this.index = new HistoryIndex(file, o.logger);
    this.indexer = startIndexing(this.index, file, o.home, o.logger);
    const watch = () => this.indexer.watch(historySpecs(o.catalog.list().map((e) => e.manifest)));
    watch();
    // A manifest added or edited later (the user's own agent) is watched from then on.
    const sub = o.catalog.onChange(watch);
    this.stopWatchingCatalog = () => sub.dispose();
  }

  progress(): IndexProgress {
    return this.indexer.progress();
  }

  /** Resolves once the first walk is done and no file waits. */
  idle(): Promise<void> {
    return this.indexer.idle();
  }

  /** Conversations whose turns hold every word, best first; null when the query has no word. */
  search(a: { query: string; agent?: string; since?: string; limit?: number }): HistoryResult[] | null {
    const query = ftsQuery(a.query);
    if (query === null) return null;
    const limit = a.limit ?? DEFAULT_RESULTS;
    const hits = this.index.hits(query, { limit: limit * TURNS_PER_RESULT, agent: a.agent || undefined, since: a.since || undefined });
    return groupBest(hits, (h) => h.path, limit, LINES_PER_RESULT).map(resultOf);
  }

  conversations(idOrPrefix: string, agent?: string): IndexedConversation[] {
    return this.index.conversations(idOrPrefix, agent);
  }

  usage(a: { by: UsageGroup; agent?: string; since?: string; conversation?: string }, table: PriceTable) {
    return sumUsage(this.index.usage({ agent: a.agent, since: a.since, conversation: a.conversation }), a.by, table);
  }

  async dispose(): Promise<void> {
    this.stopWatchingCatalog();
    await this.indexer.dispose();
    this.index.close();
  }
}

function resultOf(hits: TurnHit[]): HistoryResult {
  const first = hits[0]!;
  const lines = hits.map((h) => ({
    role: h.role === 'user' ? ('user' as const) : ('assistant' as const),
    at: h.at,
    ...snippetHits(h.snippet, HIT_START, HIT_END),
  }));
  return {
    agent: first.agent,
    conversation: first.conversation,
    cwd: first.cwd,
    machine: null,
    title: first.title,
    lastActivity: first.last,
    snippet: lines[0]!.text,
    lines,
  };
}
