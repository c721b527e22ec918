// Turning a person's search words into an FTS5 query, the index's marked snippets into text with
// hit ranges, and matching turns into one result per conversation. Pure.
import { addUsage, emptyTotals, type PriceTable, type UsageTotals } from './prices';
import type { TurnUsage } from './conversation';

/** The FTS5 query for these words: every word must occur (each quoted, so no FTS syntax leaks in); "word*" matches any ending. Null: no word. */
export function ftsQuery(words: string): string | null {
  const terms = words
    .split(/\s+/)
    .map((w) => {
      const prefix = w.endsWith('*');
      const bare = w.replace(/["*]/g, '');
      return bare ? `"${bare}"${prefix ? '*' : ''}` : '';
    })
    .filter(Boolean);
  return terms.length > 0 ? terms.join(' ') : null;
}

/** A snippet whose hits sit between `open` and `close`, as plain text and hit ranges. */
export function snippetHits(marked: string, open: string, close: string): { text: string; hits: { start: number; length: number }[] } {
  let text = '';
  const hits: { start: number; length: number }[] = [];
  let start = -1;
  for (const ch of marked) {
    if (ch === open) start = text.length;
    else if (ch === close && start >= 0) {
      hits.push({ start, length: text.length - start });
      start = -1;
    } else text += ch === '\n' ? ' ' : ch;
  }
  return { text, hits };
}

/** Items grouped by key in the order their first member came (best first stays best first), `perGroup` each, `groups` at most. */
export function groupBest<T>(items: T[], keyOf: (t: T) => string, groups: number, perGroup: number): T[][] {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const g = out.get(key);
    if (g) {
      if (g.length < perGroup) g.push(item);
    } else if (out.size < groups) out.set(key, [item]);
  }
  return [...out.values()];
}

/** One response's tokens with the agent and folder of its conversation. */
export interface UsageRecord extends TurnUsage {
  agent: string;
  cwd: string | null;
}

export type UsageGroup = 'agent' | 'day' | 'folder' | 'model';

/** Usage summed per agent, day (UTC), folder or model, largest cost first, then most tokens; and the total. */
export function sumUsage(records: UsageRecord[], by: UsageGroup, table: PriceTable): { rows: (UsageTotals & { key: string })[]; total: UsageTotals } {
  const groups = new Map<string, UsageTotals>();
  const total = emptyTotals();
  for (const r of records) {
    const key = (by === 'agent' ? r.agent : by === 'day' ? r.at?.slice(0, 10) : by === 'folder' ? r.cwd : r.model) ?? 'unknown';
    addUsage(groups.get(key) ?? groups.set(key, emptyTotals()).get(key)!, r, table);
    addUsage(total, r, table);
  }
  const tokens = (t: UsageTotals) => t.input + t.output + t.cacheRead + t.cacheWrite;
  const rows = [...groups].map(([key, t]) => ({ key, ...t }));
  rows.sort((a, b) => (by === 'day' ? b.key.localeCompare(a.key) : b.cost - a.cost || tokens(b) - tokens(a)));
  return { rows, total };
}
