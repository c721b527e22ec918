// The phone page's search of past conversations, from the host's history verbs: the same search
// as `termio history search` (this machine's index and every connected machine's, merged), and
// a tapped hit resumed as `termio history resume` does (a new tab through the agent's resume
// plan, or the tab it is already open in).
import type { HistoryResult } from '../../../protocol/controlHistory';
import { historyStatusText } from '../../present/historyText';
import type { HistoryVerbs } from '../history/historyVerbs';
import type { IndexProgress } from '../history/historyIndexer';
import type { CompanionDeps } from './companion';

/** Conversations a page search lists: a phone's few screens. */
export const PAGE_RESULTS = 20;

export function pageHistory(verbs: Pick<HistoryVerbs, 'search' | 'resume'>): NonNullable<CompanionDeps['history']> {
  return {
    async search(query) {
      const o = await verbs.search({ query, limit: PAGE_RESULTS });
      if (!o.ok) return { ok: false, message: o.message };
      const r = o.result as { results: HistoryResult[]; progress: IndexProgress; unreachable?: string[] };
      return { ok: true, results: r.results, note: historyStatusText(r.results.length, r.progress, r.unreachable) };
    },
    async resume(agent, conversation, machine) {
      const o = await verbs.resume({ conversation, agent, machine: machine || undefined });
      return o.ok ? { ok: true, id: (o.result as { id: string }).id } : { ok: false, message: o.message };
    },
  };
}
