// A status engine's knowledge as plain data (what each channel claims, the hook health, the
// state it decided), so that a session adopted by a new host keeps its state and the reasons
// behind it; and the check a snapshot read back from a file must pass before it is trusted.
import { isSessionState, type HealthNote, type SessionStatus, type StatusChannel, type StatusWhy } from './sessionState';
import type { SessionState } from './sessionState';
import { FAILURE_KINDS, type FailureKind } from './failureReason';

/** What one channel currently claims; `seq` orders claims that share a millisecond. */
export interface StatusClaim {
  state: SessionState | null;
  why: StatusWhy;
  seq: number;
  /** seq of the claim this one replaced (0 for the first): when the channel last changed before. */
  prevSeq: number;
}

export interface StatusEngineSnapshot {
  startedAt: number;
  seq: number;
  hook: StatusClaim | null;
  title: StatusClaim | null;
  screen: StatusClaim | null;
  question: StatusClaim | null;
  progress: StatusClaim | null;
  exitWhy: StatusWhy | null;
  titleShowsAttention: boolean;
  focused: boolean;
  hooksNotReporting: HealthNote | null;
  activitySeenAt: number | null;
  workAfterHookAt: number | null;
  /** A failure the screen showed after the turn began (manifest `failureScreen`); absent in older snapshots. */
  screenFailure?: StatusClaim | null;
  /** The failure lines on screen when the turn began: only a new one is this turn's. */
  failureMark?: FailureMark | null;
  current: SessionStatus;
}

/** The failure lines a screen shows: how many, and the last one (as it reads on screen); as a
 *  turn's mark, the seq of the input that began the turn (absent in older snapshots). */
export interface FailureMark {
  count: number;
  last: string;
  seq?: number;
}

const CHANNELS: readonly StatusChannel[] = ['hooks', 'titleStatus', 'progress', 'status', 'question', 'exit', 'focus', 'start'];
const HEALTH_CODES: readonly string[] = ['hooksNotReporting', 'hooksStoppedReporting', 'stalled'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isTime = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

function whyProblem(v: unknown, where: string): string | null {
  if (!isObj(v)) return `${where} is not an object`;
  if (!CHANNELS.includes(v.channel as StatusChannel)) return `${where}.channel '${String(v.channel)}' is not a channel`;
  if (!isTime(v.at)) return `${where}.at is not a time`;
  for (const k of ['rule', 'event'] as const) if (v[k] !== undefined && typeof v[k] !== 'string') return `${where}.${k} is not text`;
  if (v.failure !== undefined) {
    const f = v.failure;
    if (!isObj(f) || !FAILURE_KINDS.includes(f.kind as FailureKind) || typeof f.reason !== 'string') return `${where}.failure is not a failure`;
    if (f.resetsAt !== undefined && !isTime(f.resetsAt)) return `${where}.failure.resetsAt is not a time`;
  }
  return null;
}

function healthProblem(v: unknown, where: string): string | null {
  if (!isObj(v)) return `${where} is not an object`;
  if (!HEALTH_CODES.includes(v.code as string) || typeof v.message !== 'string' || !isTime(v.since)) return `${where} is not a health note`;
  return null;
}

function claimProblem(v: unknown, where: string): string | null {
  if (v === null) return null;
  if (!isObj(v)) return `${where} is not an object`;
  if (v.state !== null && !isSessionState(v.state)) return `${where}.state '${String(v.state)}' is not a state`;
  if (!isCount(v.seq) || !isCount(v.prevSeq)) return `${where}.seq or prevSeq is not a count`;
  return whyProblem(v.why, `${where}.why`);
}

/** What is wrong with a snapshot read back (naming the field), or null when it can be restored. */
export function engineSnapshotProblem(v: unknown): string | null {
  if (!isObj(v)) return 'not an object';
  if (!isTime(v.startedAt) || !isCount(v.seq)) return 'startedAt or seq is not a number';
  for (const k of ['hook', 'title', 'screen', 'question', 'progress', 'screenFailure'] as const) {
    const p = claimProblem(v[k] ?? null, k);
    if (p) return p;
  }
  if (v.exitWhy !== null) {
    const p = whyProblem(v.exitWhy, 'exitWhy');
    if (p) return p;
  }
  if (typeof v.titleShowsAttention !== 'boolean' || typeof v.focused !== 'boolean') return 'titleShowsAttention or focused is not true or false';
  if (v.hooksNotReporting !== null) {
    const p = healthProblem(v.hooksNotReporting, 'hooksNotReporting');
    if (p) return p;
  }
  const m = v.failureMark;
  if (m !== undefined && m !== null && (!isObj(m) || !isCount(m.count) || typeof m.last !== 'string' || (m.seq !== undefined && !isCount(m.seq))))
    return 'failureMark is not a mark';
  for (const k of ['activitySeenAt', 'workAfterHookAt'] as const) if (v[k] !== null && !isTime(v[k])) return `${k} is not a time`;
  const c = v.current;
  if (!isObj(c) || !isSessionState(c.state) || !isTime(c.since) || !Array.isArray(c.health)) return 'current is not a status';
  const p = whyProblem(c.why, 'current.why') ?? c.health.map((h, i) => healthProblem(h, `current.health[${i}]`)).find((x) => x !== null) ?? null;
  return p;
}
