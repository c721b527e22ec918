// What a session's program prints, kept from the moment of the call. A fake agent's "received: …"
// stays on screen only until it draws its next question, 300 ms later; on a loaded machine both
// writes can be parsed before a poll of the screen looks, so waits read the output instead.
import type { Session } from '../../src/terminal/node';

/** Everything `session` prints from now on. */
export function printedBy(session: Pick<Session, 'onOutput'>): () => string {
  let text = '';
  const decoder = new TextDecoder();
  session.onOutput((bytes) => (text += decoder.decode(bytes, { stream: true })));
  return () => text;
}
