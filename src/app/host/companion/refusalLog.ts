// Log lines about refused companion requests, bounded: at most one per address per window (with
// how many were refused since), header values cut short. Anyone who can reach the port chooses
// those requests and their headers, so an unbounded log would be theirs to fill.
import type { Logger } from '../../services/log';

/** One line per address per minute: enough to see who knocks, not a line per knock. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** Header values in a line: enough to recognise an origin or a host name. */
export const MAX_LOGGED_VALUE_CHARS = 120;
/** Addresses remembered at once; the oldest are forgotten first. */
const MAX_ADDRESSES = 4096;

export function truncated(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value.length > MAX_LOGGED_VALUE_CHARS ? `${value.slice(0, MAX_LOGGED_VALUE_CHARS)}… (${value.length} chars)` : value;
}

export class RefusalLog {
  private readonly seen = new Map<string, { since: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  warn(address: string, message: string, fields: Record<string, string | null | undefined> = {}): void {
    const now = this.now();
    const e = this.seen.get(address);
    if (e && now - e.since < REFUSAL_LOG_WINDOW_MS) {
      e.suppressed++;
      return;
    }
    const suppressed = e?.suppressed ?? 0;
    this.seen.delete(address);
    this.seen.set(address, { since: now, suppressed: 0 });
    if (this.seen.size > MAX_ADDRESSES) this.seen.delete(this.seen.keys().next().value as string);
    const cut = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, truncated(v)]));
    this.logger.warn(message, { address, ...cut, ...(suppressed ? { refusedSinceLastLine: suppressed } : {}) });
  }
}
