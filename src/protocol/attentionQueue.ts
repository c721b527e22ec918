// The attention queue: the sessions that need you, in the order you should get to them. Every
// consumer (the host's `termio sessions next`, the app's tray, sidebar and global hotkey, the
// phone page) orders them with these functions, so they never disagree.
//
// A session joins the queue when it enters attention (its `waitingSince` is set to that moment)
// and leaves it when it leaves attention or is handled: its question answered, something typed
// into it, or `termio sessions handled`. A handled session that still shows attention keeps its
// state (the agent still waits) but is no longer in the queue: it has had your answer, and the
// queue is for what has not. It joins again when it asks a new question. Pure: no I/O, no clock.
import type { SessionState } from './status/sessionState';

/** What the queue reads of a session; times are epoch ms. */
export interface QueueFacts {
  id: string;
  state: SessionState;
  /** When it began to wait for you, or null when it is not in the queue. */
  waitingSince: number | null;
  /** When it entered its state: ranks the done sessions the queue falls back to. */
  stateSince: number;
  /** False while its machine is away (termio machines): it cannot be reached, so it is neither
   *  in the queue nor where "next" goes. */
  reachable?: boolean;
}

/** Oldest waiting first; sessions that wait since the same moment by id, so the order is stable. */
export function compareWaiting(a: QueueFacts, b: QueueFacts): number {
  const wa = a.waitingSince ?? Infinity;
  const wb = b.waitingSince ?? Infinity;
  return wa - wb || (wa === Infinity ? 0 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The sessions in the queue, the one waiting longest first. */
export function attentionQueue<T extends QueueFacts>(sessions: readonly T[]): T[] {
  return sessions.filter((s) => s.state === 'attention' && s.waitingSince !== null && s.reachable !== false).sort(compareWaiting);
}

/** Where "next" goes: the head of the queue, else the session that finished most recently. */
export type NextSession<T> = { session: T; reason: 'waiting' | 'done' } | null;

/** The head of the queue; when `current` (the session you are looking at) is in the queue, the
 *  one after it, round to the head: pressed again, "next" walks the queue instead of staying on
 *  a session you have looked at but not handled. Nothing waits: the most recently done. */
export function nextSession<T extends QueueFacts>(sessions: readonly T[], current: string | null = null): NextSession<T> {
  const queue = attentionQueue(sessions);
  const head = queue[(queue.findIndex((s) => s.id === current) + 1) % Math.max(1, queue.length)];
  if (head) return { session: head, reason: 'waiting' };
  const done = sessions.filter((s) => s.state === 'done' && s.reachable !== false).sort((a, b) => b.stateSince - a.stateSince)[0];
  return done ? { session: done, reason: 'done' } : null;
}

/** Sessions with the queue first (oldest waiting first), the rest after in the order given. */
export function queueFirst<T extends QueueFacts>(sessions: readonly T[]): T[] {
  const queue = attentionQueue(sessions);
  const inQueue = new Set(queue);
  return [...queue, ...sessions.filter((s) => !inQueue.has(s))];
}

/** How long a session has waited, as a person says it: "waiting 40 s", "waiting 12 min",
 *  "waiting 2 h 5 min", "waiting 3 days". */
export function waitingAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `waiting ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `waiting ${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `waiting ${h} h ${m % 60} min` : `waiting ${h} h`;
  const d = Math.floor(h / 24);
  return `waiting ${d} day${d === 1 ? '' : 's'}`;
}

/** A wire time (ISO, or null/absent) as epoch ms. A host older than the queue sends no
 *  `waitingSince`: a session of it in attention waits since it entered that state. */
export function waitingSinceMs(s: { state: SessionState; stateSince: string; waitingSince?: string | null }): number | null {
  if (s.waitingSince !== undefined) return s.waitingSince === null ? null : Date.parse(s.waitingSince);
  return s.state === 'attention' ? Date.parse(s.stateSince) : null;
}
