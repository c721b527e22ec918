// How a pushed payload is shown: the service worker's notification and the tests' reading of it.
// Apart from push.ts so the service worker's bundle takes these few lines, not zod.
import type { PushPayload } from './push';

/** The notification a payload shows: the service worker's and the tests' one reading of it.
 *  `maxActions`: how many actions the browser shows (Notification.maxActions: Chrome 2). When the
 *  choices are more, the first ones and the last are kept: a permission menu's last choice is its
 *  "No", which should not be the one left out. A plain tap always opens the session. */
export function pushNotification(
  p: PushPayload,
  maxActions = 3,
): { title: string; body: string; tag: string; actions: Array<{ action: string; title: string }> } {
  const what = p.kind === 'done' ? 'finished' : p.kind === 'failed' ? 'failed' : 'needs you';
  return {
    title: `${p.agent} ${what} · ${p.folder}`,
    body: p.question?.text ?? p.failure ?? (p.kind === 'done' ? 'Its turn is over.' : 'Open the session to see what it asks.'),
    // One notification per session: a newer one replaces the older.
    tag: `termio-${p.session}`,
    actions: keptChoices(p.question?.choices.length ?? 0, maxActions).map((i) => ({ action: `choice-${i}`, title: p.question!.choices[i]! })),
  };
}

/** The choice index of a notification action (`choice-1`), or null for a plain tap. */
export function choiceOfAction(action: string): number | null {
  const m = /^choice-(\d)$/.exec(action);
  return m ? Number(m[1]) : null;
}

/** Which choices (by index) become actions: all when they fit, else the first ones and the last. */
function keptChoices(n: number, max: number): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  if (n <= max) return all;
  return max <= 0 ? [] : [...all.slice(0, max - 1), n - 1];
}
