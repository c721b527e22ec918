// Bad-token attempts per client address: a few wrong tokens are a typo or an old QR code; more
// within a minute is someone guessing, and that address is refused outright (429, no token
// check) for a while. Bounded memory: the oldest addresses are forgotten first.

/** Wrong tokens an address may send per window: a person retrying an old link a few times. */
export const MAX_FAILURES = 10;
/** The window failures are counted in, and how long an address stays refused after the limit. */
export const WINDOW_MS = 60_000;
/** Addresses remembered at once: a LAN has far fewer; the cap bounds what a scan can cost. */
const MAX_ADDRESSES = 4096;

interface Entry {
  failures: number;
  windowStart: number;
  blockedUntil: number;
}

export class FailureLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether this address is refused right now. */
  blocked(address: string): boolean {
    const e = this.entries.get(address);
    return e !== undefined && e.blockedUntil > this.now();
  }

  /** Records a wrong token; true when this one crossed the limit. */
  fail(address: string): boolean {
    const now = this.now();
    let e = this.entries.get(address);
    if (!e || now - e.windowStart > WINDOW_MS) {
      e = { failures: 0, windowStart: now, blockedUntil: e?.blockedUntil ?? 0 };
    }
    this.entries.delete(address);
    this.entries.set(address, e);
    if (this.entries.size > MAX_ADDRESSES) this.entries.delete(this.entries.keys().next().value as string);
    e.failures++;
    if (e.failures >= MAX_FAILURES && e.blockedUntil <= now) {
      e.blockedUntil = now + WINDOW_MS;
      return true;
    }
    return false;
  }

  /** A right token clears the address's count. */
  succeed(address: string): void {
    const e = this.entries.get(address);
    if (e && e.blockedUntil <= this.now()) this.entries.delete(address);
  }
}
