// How a pushed payload is shown: the service worker's notification and the tests' reading of it.
// Apart from push.ts so the service worker's bundle takes these few lines, not zod.
import type { PushPayload } from './push';

/** The notification a payload shows: the service worker's and the tests' one reading of it. */
export function pushNotification(p: PushPayload): { title: string; body: string; tag: string; actions: Array<{ action: string; title: string }> } {
  const what = p.kind === 'done' ? 'finished' : p.kind === 'failed' ? 'failed' : 'needs you';
  return {
    title: `${p.agent} ${what} · ${p.folder}`,
    body: p.question?.text ?? p.failure ?? (p.kind === 'done' ? 'Its turn is over.' : 'Open the session to see what it asks.'),
    // One notification per session: a newer one replaces the older.
    tag: `termio-${p.session}`,
    actions: (p.question?.choices ?? []).map((title, i) => ({ action: `choice-${i}`, title })),
  };
}

/** The choice index of a notification action (`choice-1`), or null for a plain tap. */
export function choiceOfAction(action: string): number | null {
  const m = /^choice-(\d)$/.exec(action);
  return m ? Number(m[1]) : null;
}
