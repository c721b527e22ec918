// The agent picker's order: the user's order from Settings first, then the manifests'; and the
// order after the user moves one agent. Pure: the host reads and saves the settings.
import type { CatalogEntry } from './catalog';

/** What Settings keeps per agent that the order reads. */
export type AgentPlacement = Record<string, { order?: number | undefined; enabled?: boolean | undefined } | undefined>;

/** Agents the user never placed keep the catalog's order, after the placed ones (no real order reaches a million). */
const UNPLACED = 1e6;

export function pickerOrder(entries: readonly CatalogEntry[], prefs: AgentPlacement): CatalogEntry[] {
  return entries
    .map((e, i) => ({ e, key: prefs[e.id]?.order ?? UNPLACED + i }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.e);
}

/** The ids in their new order after moving `id` up (-1) or down (+1); null when it cannot move. */
export function movedOrder(ids: readonly string[], id: string, delta: -1 | 1): string[] | null {
  const from = ids.indexOf(id);
  const to = from + delta;
  if (from < 0 || to < 0 || to >= ids.length) return null;
  const next = [...ids];
  [next[from], next[to]] = [next[to]!, next[from]!];
  return next;
}
