// Sends pushes to each device's push service (the browser vendor's: FCM, Mozilla autopush, Apple)
// through the npm `web-push` library: VAPID (RFC 8292) and aes128gcm (RFC 8291), never crypto of
// our own. Every device is sent to on its own, so one slow or refusing service never holds up
// another. What a service answers decides what happens next (pushDecision): 201 sent; 404/410 the
// subscription is gone and the device is removed; 429 and 5xx back off (Retry-After when given,
// else exponentially, capped), holding the newest payload for that session to send when it ends.

/** First wait after a 429/5xx without Retry-After; doubled each time, up to the cap. */
export const BACKOFF_FIRST_MS = 5_000;
export const BACKOFF_CAP_MS = 10 * 60_000;
/** A Retry-After further away than this is not waited for longer than this. */
export const RETRY_AFTER_CAP_MS = 60 * 60_000;

export type PushDecision =
  { action: 'sent' } | { action: 'remove'; why: string } | { action: 'backoff'; retryAt: number; why: string } | { action: 'failed'; why: string };

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (!header) return null;
  const s = header.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** What a push service's answer means. `failures`: backoffs in a row before this one. */
export function pushDecision(status: number | null, retryAfter: string | undefined, failures: number, now: number): PushDecision {
  if (status !== null && status >= 200 && status < 300) return { action: 'sent' };
  if (status === 404 || status === 410) return { action: 'remove', why: `the push service says the subscription is gone (${status})` };
  if (status === null || status === 429 || status >= 500) {
    const given = retryAfterMs(retryAfter, now);
    const wait = given !== null ? Math.min(given, RETRY_AFTER_CAP_MS) : Math.min(BACKOFF_FIRST_MS * 2 ** failures, BACKOFF_CAP_MS);
    const why = status === null ? 'the push service could not be reached' : `the push service answered ${status}`;
    return { action: 'backoff', retryAt: now + wait, why };
  }
  return { action: 'failed', why: `the push service refused the push (${status})` };
}

/** One send through web-push: the service's status and Retry-After, or null status when unreachable. */
export type SendFn = (
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
  payload: string,
  opts: { ttl: number; topic: string; urgency: 'high' | 'normal' },
) => Promise<{ status: number | null; retryAfter?: string; message?: string }>;

type WebPush = typeof import('web-push');

/** web-push, loaded on first use (a host that never pushes never loads it). It is CommonJS: run
 *  from tsc's output, Node's import() gives its exports as `default` only; bundled, as named ones. */
export async function loadWebPush(): Promise<WebPush> {
  const m = (await import('web-push')) as WebPush & { default?: WebPush };
  return m.default ?? m;
}

/** The real sender, through web-push. */
export function webPushSend(vapid: { publicKey: string; privateKey: string; subject: string }): SendFn {
  return async (subscription, payload, opts) => {
    const webpush = await loadWebPush();
    try {
      const r = await webpush.sendNotification(subscription, payload, {
        vapidDetails: vapid,
        TTL: opts.ttl,
        topic: opts.topic,
        urgency: opts.urgency,
        contentEncoding: 'aes128gcm',
        timeout: 15_000,
      });
      return { status: r.statusCode };
    } catch (err) {
      const e = err as { statusCode?: number; headers?: Record<string, string>; body?: string; message?: string };
      if (typeof e.statusCode === 'number')
        return { status: e.statusCode, retryAfter: e.headers?.['retry-after'] ? e.headers['retry-after'] : undefined, message: (e.body ?? '').slice(0, 200) };
      return { status: null, message: e.message ?? String(err) };
    }
  };
}
