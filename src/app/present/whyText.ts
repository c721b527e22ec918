// The why strip under the sidebar: one line on why the selected session is in its state (which
// channel said so, what it said, how long ago), the tool it waits on, and its health notes.
// Pure: the app passes in what the registry and the status tracker know.
import type { SessionState, SessionStatus, StatusChannel } from '../../protocol/status/sessionState';
import { failedText, formatDuration, stateLabel } from './sidebarModel';

export interface WhyInput {
  /** The registry's state and its one-word reason, used when no status channel tracks the session. */
  state: SessionState;
  stateWhy: string;
  /** The tracker's status, when the session is tracked. */
  status?: SessionStatus | undefined;
  /** The tool the agent's latest hook named (manifest hooks.tool). */
  tool?: string | undefined;
  now: number;
}

/** How the strip names each channel. */
const channelName: Record<StatusChannel, string> = {
  hooks: 'hook',
  titleStatus: 'title',
  progress: 'progress',
  status: 'screen',
  question: 'question on screen',
  exit: 'process',
  focus: 'you looked at it',
  start: 'started',
};

/** "Working — hook PreToolUse, 3s ago", "Stopped: API error 401: log in again — hook StopFailure,
 *  just now" (+ "⚠ …" health notes on their own lines). */
export function whyText(input: WhyInput): string {
  const st = input.status;
  if (!st) return `${stateLabel[input.state]} — ${input.stateWhy || 'no status channel'}`;
  const w = st.why;
  // A look has no event worth naming ("user looked" would only repeat the channel).
  const what = w.rule !== undefined ? `/${w.rule}/` : w.channel === 'focus' ? '' : (w.event ?? '');
  const health = st.health.map((h) => `\n⚠ ${h.message}`).join('');
  if (w.channel === 'start') return `${stateLabel[st.state]} — nothing reported yet${health}`;
  const ago = formatDuration(input.now - w.at);
  const when = ago === 'now' ? 'just now' : `${ago} ago`;
  // A failure says what stopped it first: that is what the user acts on.
  if (w.failure) return `${failedText(w.failure.reason)} — ${channelName[w.channel]}${what ? ` ${what}` : ''}, ${when}${health}`;
  // What the agent works on or waits for, while it does.
  const on = input.tool && (st.state === 'working' || st.state === 'attention') ? ` — waiting on ${input.tool}` : '';
  return `${stateLabel[st.state]}${on} — ${channelName[w.channel]}${what ? ` ${what}` : ''}, ${when}${health}`;
}
