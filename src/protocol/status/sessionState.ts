// The four session states of ATP "Status" and the shape in which a session explains its state
// (which channel, which rule or event, when, and which failure stopped it). Plain types: the
// status engine produces them.
import type { StatusFailure } from './failureReason';

export type { FailureKind, StatusFailure } from './failureReason';

export const SESSION_STATES = ['working', 'attention', 'done', 'idle'] as const;
/** working; attention = blocked on the user; done = finished while the user was elsewhere; idle. */
export type SessionState = (typeof SESSION_STATES)[number];

/** Most urgent first: attention beats working, working beats a finished state. */
export const STATE_PRIORITY: readonly SessionState[] = ['attention', 'working', 'done', 'idle'];

export function isSessionState(value: unknown): value is SessionState {
  return typeof value === 'string' && (SESSION_STATES as readonly string[]).includes(value);
}

/**
 * Where a state came from: an agent's hook, its terminal title, its screen, the process
 * ending, the user looking at the session, or the session starting (nothing known yet).
 * `question`: a question read off the screen (a menu, a y/n prompt), its text quoted in `event`.
 */
export type StatusChannel = 'hooks' | 'titleStatus' | 'progress' | 'status' | 'question' | 'exit' | 'focus' | 'start';

export interface StatusWhy {
  channel: StatusChannel;
  /** The regex (its source) that matched, for titleStatus and status. */
  rule?: string;
  /** The hook event name ("Stop"), or what happened ("exit 0", "no rule matches"). */
  event?: string;
  /** When the evidence arrived (ms since the epoch). */
  at: number;
  /** The session stopped on a failure (an API error, a usage limit, a bad exit): its state is
   *  attention, and this says which failure in words a person acts on. */
  failure?: StatusFailure;
}

export type HealthNoteCode = 'hooksNotReporting' | 'hooksStoppedReporting' | 'stalled';

export interface HealthNote {
  code: HealthNoteCode;
  message: string;
  since: number;
}

export interface SessionStatus {
  state: SessionState;
  /** When the session entered this state (ms since the epoch). */
  since: number;
  why: StatusWhy;
  health: HealthNote[];
}
