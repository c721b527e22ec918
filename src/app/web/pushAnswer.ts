// What the service worker and the page share about a pushed notification: the notification as
// the worker hands it to an open page (shown there as a banner instead of a system notification),
// and the one way an action answers — POST /api/push/answer with the push's answer token (the
// token is the authority: a service worker has no pairing token). Both bundles import this.
import type { PushPayload } from '../../protocol/push';
import { pushNotification } from '../../protocol/pushNotification';

/** A push as the worker posts it to a visible page (`{t: 'push', push}`): what the system
 *  notification would have shown, and what its actions need. */
export interface PagePush {
  kind: PushPayload['kind'];
  session: string;
  /** The page's address of the session (`/#s=<id>`). */
  url: string;
  title: string;
  body: string;
  /** One per session: a newer push replaces the older. */
  tag: string;
  actions: Array<{ action: string; title: string }>;
  /** The question's answer token, or null when the push asks nothing. */
  token: string | null;
}

export function pagePush(p: PushPayload, maxActions: number): PagePush {
  const n = pushNotification(p, maxActions);
  return { kind: p.kind, session: p.session, url: p.url, ...n, token: p.question?.token ?? null };
}

/** What became of an action: the choice's label that was sent, or why nothing was (the host's
 *  words), or that the host could not be reached. */
export type PushAnswerOutcome = { ok: true; choice: string } | { ok: false; message: string };

/** Answers a pushed question's choice with its token. */
export async function answerPush(token: string, choice: number): Promise<PushAnswerOutcome> {
  let r: Response;
  try {
    r = await fetch('/api/push/answer', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, choice }),
    });
  } catch {
    return { ok: false, message: "Termio's host cannot be reached" };
  }
  const body = (await r.json().catch(() => ({}))) as { choice?: string; error?: string };
  return r.ok ? { ok: true, choice: body.choice ?? '' } : { ok: false, message: body.error ?? `the host answered ${r.status}` };
}
