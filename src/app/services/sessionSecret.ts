// A session's secret: minted per launch, put in the session's environment beside TERMIO_SESSION,
// and carried back by what runs inside it (hook reports, control requests), so the host knows
// which session asks. Session ids are not secret (`termio sessions list` shows them); these are.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The environment variable that carries a session's secret to the processes inside it. */
export const SESSION_SECRET_ENV = 'TERMIO_SESSION_SECRET';
/** 32 random bytes: not guessable, and short enough for an environment variable and a frame. */
const SESSION_SECRET_BYTES = 32;

/** Who a client inside a Termio session says it is: its TERMIO_SESSION and secret, as set (an
 *  empty variable is absent). A session named without its secret is not the user. */
export function sessionIdentity(env: NodeJS.ProcessEnv): { session?: string; secret?: string } {
  const session = env.TERMIO_SESSION || undefined;
  const secret = env[SESSION_SECRET_ENV] || undefined;
  return { session, secret };
}

export function mintSessionSecret(): string {
  return randomBytes(SESSION_SECRET_BYTES).toString('base64url');
}

/** Constant-time comparison, so timing tells a guesser nothing; an empty secret never matches. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && b.length > 0 && timingSafeEqual(a, b);
}
