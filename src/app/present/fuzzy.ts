// Fuzzy matching for the agent picker and "jump to session": the query's letters must appear in
// order; matches at word starts and in runs score higher, so "cc" finds Claude Code first.
export interface FuzzyMatch {
  score: number;
  /** Indexes of the matched characters in the candidate, for highlighting. */
  positions: number[];
}

const WORD_START_BONUS = 8; // a letter that starts a word ("Code" in "Claude Code") counts most
const RUN_BONUS = 5; // each letter right after the previous match
const FIRST_CHAR_BONUS = 6; // the candidate starts with the query's first letter
const GAP_PENALTY = 1; // per skipped character between two matches

function isWordStart(text: string, i: number): boolean {
  if (i === 0) return true;
  const prev = text[i - 1]!;
  const cur = text[i]!;
  return /[\s\-_./]/.test(prev) || (prev === prev.toLowerCase() && cur !== cur.toLowerCase());
}

/** null when the query's letters do not all appear in order. */
export function fuzzyMatch(query: string, candidate: string): FuzzyMatch | null {
  const q = query.trim().toLowerCase();
  if (q === '') return { score: 0, positions: [] };
  const lower = candidate.toLowerCase();
  // Left to right: continue a run when the next character matches, else jump to the next word
  // start that matches, else take the nearest occurrence.
  const positions: number[] = [];
  let from = 0;
  for (const ch of q) {
    if (ch === ' ') continue;
    let at = positions.length > 0 && lower[from] === ch ? from : -1;
    if (at === -1) {
      const first = lower.indexOf(ch, from);
      if (first === -1) return null;
      at = first;
      for (let i = first; i !== -1; i = lower.indexOf(ch, i + 1)) {
        if (isWordStart(candidate, i)) {
          at = i;
          break;
        }
      }
    }
    positions.push(at);
    from = at + 1;
  }
  let score = 0;
  positions.forEach((p, k) => {
    if (isWordStart(candidate, p)) score += WORD_START_BONUS;
    if (k > 0 && p === positions[k - 1]! + 1) score += RUN_BONUS;
    if (k > 0) score -= GAP_PENALTY * Math.max(0, p - positions[k - 1]! - 1);
  });
  if (positions[0] === 0) score += FIRST_CHAR_BONUS;
  return { score, positions };
}

/** Items that match, best first; ties keep the input order (the picker's manifest order). */
export function fuzzyFilter<T>(query: string, items: T[], text: (item: T) => string | string[]): Array<{ item: T; match: FuzzyMatch }> {
  const out: Array<{ item: T; match: FuzzyMatch; index: number }> = [];
  items.forEach((item, index) => {
    const texts = text(item);
    let best: FuzzyMatch | null = null;
    for (const t of Array.isArray(texts) ? texts : [texts]) {
      const m = fuzzyMatch(query, t);
      if (m && (!best || m.score > best.score)) best = m;
    }
    if (best) out.push({ item, match: best, index });
  });
  out.sort((a, b) => b.match.score - a.match.score || a.index - b.index);
  return out.map(({ item, match }) => ({ item, match }));
}
