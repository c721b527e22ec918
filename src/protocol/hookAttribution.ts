// Which tab a hook report belongs to when it may not be the tab it names. Codex runs every tab's
// hooks in one `codex app-server` daemon per HOME; the first tab's agent starts it, so it runs
// inside that tab's process tree and carries that tab's TERMIO_SESSION and secret for every tab
// it serves after. Its reports all name the first tab and look like that tab's own agent's; only
// the conversation id in the payload tells them apart. So once the named tab is bound to a
// conversation, a report for another conversation is:
// - the tab's own when no other tab of the agent could own it (a /new or /clear in that tab);
// - another tab's when that tab is bound to the conversation;
// - a new tab's when it is a fresh start (SessionStart, source "startup": a new agent process's
//   first conversation, never a rotation inside the named tab, whose agent started long ago) and
//   exactly one other tab of the agent still waits for its conversation: that tab is bound to it;
// - nobody's otherwise (two tabs waiting, or an agent started outside Termio that the daemon
//   serves): not applied, and the named tab's why strip says so. Never credited to a guess, nor
//   are the later reports of a fresh start that no tab took.
// A report with the named tab's own conversation, or from a tab not bound yet, is the named tab's.

export interface AttributionTab {
  id: string;
  agentId: string;
  conversationId: string | null;
}

export type Attribution =
  | { kind: 'named' }
  | { kind: 'other'; sessionId: string; bind: boolean }
  /** `orphan`: a fresh start no tab took; its later reports are nobody's too (see `orphans`). */
  | { kind: 'nobody'; why: string; orphan?: boolean };

export interface AttributedReport {
  event: string;
  /** The conversation id read from the payload, if any. */
  conversationId?: string | undefined;
  /** The payload as sent (its `source` tells a fresh start from a resume or a clear). */
  payload: string;
}

/** SessionStart with source "startup": a newly started agent process's first conversation. */
export function isFreshStart(report: Pick<AttributedReport, 'event' | 'payload'>): boolean {
  if (report.event !== 'SessionStart') return false;
  try {
    const p = JSON.parse(report.payload) as unknown;
    return typeof p === 'object' && p !== null && (p as { source?: unknown }).source === 'startup';
  } catch {
    return false;
  }
}

/** `tabs`: every tracked tab (the named one included); `orphans`: conversations whose fresh start
 *  no tab took. */
export function attributeReport(
  named: AttributionTab,
  report: AttributedReport,
  tabs: readonly AttributionTab[],
  orphans: ReadonlySet<string> = new Set(),
): Attribution {
  const conv = report.conversationId;
  if (named.conversationId === null || conv === undefined || conv === named.conversationId) return { kind: 'named' };
  const peers = tabs.filter((x) => x.id !== named.id && x.agentId === named.agentId);
  const owner = peers.find((x) => x.conversationId === conv);
  if (owner) return { kind: 'other', sessionId: owner.id, bind: false };
  if (orphans.has(conv))
    return { kind: 'nobody', why: `for a conversation (${conv}) that started under this tab's environment and could not be tied to a tab` };
  const waiting = peers.filter((x) => x.conversationId === null);
  if (isFreshStart(report)) {
    if (waiting.length === 1) return { kind: 'other', sessionId: waiting[0]!.id, bind: true };
    const others = waiting.length === 0 ? 'no other tab of the agent waits for one' : `${waiting.length} other tabs of the agent wait for one`;
    return {
      kind: 'nobody',
      orphan: true,
      why: `a new conversation (${conv}) started under this tab's environment, not this tab's (${named.conversationId}), and ${others}`,
    };
  }
  if (waiting.length === 0) return { kind: 'named' };
  return {
    kind: 'nobody',
    why: `for another conversation (${conv}) than this tab's (${named.conversationId}), while ${waiting.length} other tab(s) of the agent wait for theirs: whose it is cannot be told`,
  };
}
