// Answer tokens for pushed questions. A push's actions answer without the pairing token (a
// service worker wakes with none), so each pushed question carries a token of its own: 32 random
// bytes, bound to (session, question id). It is good until that question is answered, changes or
// goes away; used once, it is spent. A spent or expired token is remembered for a while, so a
// replay is told why it was refused rather than treated as a guess.
import { randomBytes } from 'node:crypto';

export type TokenRefusal = 'unknownToken' | 'tokenUsed' | 'questionGone';

interface Live {
  sessionId: string;
  questionId: string;
}

/** How many spent or expired tokens are remembered (oldest forgotten first). */
const REMEMBERED = 1024;

export class AnswerTokens {
  private readonly live = new Map<string, Live>();
  private readonly dead = new Map<string, Exclude<TokenRefusal, 'unknownToken'>>();

  /** The token for this question; the same one while the question stays (one per question, every device). */
  issue(sessionId: string, questionId: string): string {
    for (const [t, l] of this.live) if (l.sessionId === sessionId && l.questionId === questionId) return t;
    const token = randomBytes(32).toString('base64url');
    this.live.set(token, { sessionId, questionId });
    return token;
  }

  /** The session's question is now `questionId` (null: none, or answered): other tokens expire. */
  questionChanged(sessionId: string, questionId: string | null): void {
    for (const [t, l] of this.live) if (l.sessionId === sessionId && l.questionId !== questionId) this.kill(t, 'questionGone');
  }

  /** What a token answers, or why it answers nothing. */
  check(token: string): { ok: true; sessionId: string; questionId: string } | { ok: false; reason: TokenRefusal } {
    const l = this.live.get(token);
    if (l) return { ok: true, ...l };
    return { ok: false, reason: this.dead.get(token) ?? 'unknownToken' };
  }

  /** The token answered its question: it cannot answer again. */
  spend(token: string): void {
    if (this.live.has(token)) this.kill(token, 'tokenUsed');
  }

  private kill(token: string, why: Exclude<TokenRefusal, 'unknownToken'>): void {
    this.live.delete(token);
    this.dead.set(token, why);
    if (this.dead.size > REMEMBERED) this.dead.delete(this.dead.keys().next().value!);
  }
}

export const TOKEN_REFUSAL_TEXT: Record<TokenRefusal, string> = {
  unknownToken: 'this answer link is not known to the host (it may have restarted); open the session',
  tokenUsed: 'this question was already answered from a notification',
  questionGone: 'the question was answered, changed or went away since the notification',
};
