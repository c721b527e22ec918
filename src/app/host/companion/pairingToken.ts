// The companion's pairing token: 32 random bytes kept in $TERMIO_HOME/companion-token (0600,
// written atomically), read once at start, compared in constant time, and replaced by a fresh one
// when the user revokes. Whoever holds it may see and type into every session, so it never
// leaves this file, the QR code and the page's own storage.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../services/atomicWrite';
import { readTextIfExists } from '../../services/textFile';

/** 32 bytes = 256 bits: far past guessing, at any request rate. */
export const TOKEN_BYTES = 32;
/** base64url of 32 bytes: 43 characters, all of them legal in a URL fragment and an HTTP token. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export function tokenFile(home: string): string {
  return join(home, 'companion-token');
}

export class PairingToken {
  private value: Buffer;

  private constructor(
    readonly file: string,
    value: string,
  ) {
    this.value = Buffer.from(value, 'utf8');
  }

  /** Reads the token, or mints one when the file is missing or does not hold a token. The file
   *  is tightened to 0600 if someone loosened it. */
  static load(home: string): PairingToken {
    const file = tokenFile(home);
    const text = readTextIfExists(file)?.trim();
    if (text !== undefined && TOKEN_RE.test(text)) {
      if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
      return new PairingToken(file, text);
    }
    const t = new PairingToken(file, '');
    t.mint();
    return t;
  }

  get current(): string {
    return this.value.toString('utf8');
  }

  /** Whether `candidate` is the token: constant time in the token's content. */
  matches(candidate: string | undefined | null): boolean {
    if (typeof candidate !== 'string') return false;
    const c = Buffer.from(candidate, 'utf8');
    // Lengths differ: compare against itself so the time spent does not depend on the guess.
    if (c.length !== this.value.length) {
      timingSafeEqual(this.value, this.value);
      return false;
    }
    return timingSafeEqual(c, this.value);
  }

  /** Replaces the token with a fresh one (revoke); the old one stops working at once. */
  mint(): string {
    const next = randomBytes(TOKEN_BYTES).toString('base64url');
    writeFileAtomic(this.file, `${next}\n`, { mode: 0o600, forceMode: true });
    this.value = Buffer.from(next, 'utf8');
    return next;
  }
}
