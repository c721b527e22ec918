// The companion page's service worker (served at /sw.js, scope /): shows a push from the host as
// a notification — the agent and folder, the question, its first choices as actions, one
// notification per session (a newer one replaces the older) — and acts on it. An action answers
// with the push's answer token (pushAnswer.ts); a plain tap, or an answer the host refused (the
// question moved on), opens the page at that session. While a page of the companion is open and
// visible, the push goes to that page instead, which shows it as a banner (no double alert).
import type { PushPayload } from '../../protocol/push';
import { choiceOfAction } from '../../protocol/pushNotification';
import { answerPush, pagePush, type PagePush } from './pushAnswer';

// The worker's globals, as much of them as is used: this folder is type-checked with the DOM's.
interface Shown {
  tag: string;
  data: unknown;
  close(): void;
}
interface Waitable {
  waitUntil(p: Promise<unknown>): void;
}
interface PushEventLike extends Waitable {
  data: { json(): unknown } | null;
}
interface ClickEventLike extends Waitable {
  action: string;
  notification: Shown;
}
interface WindowClientLike {
  url: string;
  visibilityState: DocumentVisibilityState;
  focus(): Promise<unknown>;
  postMessage(m: unknown, transfer?: Transferable[]): void;
}
interface Scope {
  addEventListener(type: 'install' | 'activate', fn: (e: Waitable) => void): void;
  addEventListener(type: 'push', fn: (e: PushEventLike) => void): void;
  addEventListener(type: 'notificationclick', fn: (e: ClickEventLike) => void): void;
  addEventListener(type: 'message', fn: (e: Waitable & { data: unknown; origin: string }) => void): void;
  skipWaiting(): Promise<void>;
  registration: {
    showNotification(title: string, options: Record<string, unknown>): Promise<void>;
    getNotifications(filter?: { tag?: string }): Promise<Shown[]>;
  };
  clients: {
    claim(): Promise<void>;
    matchAll(o: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  location: Location;
}
const sw = self as unknown as Scope;

sw.addEventListener('install', (e) => e.waitUntil(sw.skipWaiting()));
sw.addEventListener('activate', (e) => e.waitUntil(sw.clients.claim()));

/** A payload this worker can show, or null (a host newer than this page: shown plainly). */
function payloadOf(data: unknown): PushPayload | null {
  const p = data as Partial<PushPayload> | null;
  return p && p.v === 1 && typeof p.session === 'string' && typeof p.url === 'string' ? (p as PushPayload) : null;
}

/** How long a visible page has to say it showed a push before the system notification shows
 *  it instead (a page still loading, or one from before this worker, says nothing). */
const PAGE_TAKES_MS = 2000;

/** The open pages of this companion. */
async function companionPages(): Promise<WindowClientLike[]> {
  const pages = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  return pages.filter((c) => new URL(c.url).origin === sw.location.origin);
}

/** Hands a push to the visible pages; true once one of them says it shows it. */
async function shownInPage(push: PagePush): Promise<boolean> {
  const pages = (await companionPages()).filter((c) => c.visibilityState === 'visible');
  if (pages.length === 0) return false;
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), PAGE_TAKES_MS);
    for (const page of pages) {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        clearTimeout(timer);
        resolve(true);
      };
      page.postMessage({ t: 'push', push }, [ch.port2]);
    }
  });
}

/** WebKit (Safari; every browser on iOS) ends a subscription whose pushes show no system
 *  notification, page in front or not: there it shows as well as the banner. */
const MUST_NOTIFY = /AppleWebKit/.test(navigator.userAgent) && !/Chrome\//.test(navigator.userAgent);

async function show(p: PushPayload): Promise<void> {
  const push = pagePush(p, (self as unknown as { Notification?: { maxActions?: number } }).Notification?.maxActions ?? 2);
  if ((await shownInPage(push)) && !MUST_NOTIFY) return;
  await sw.registration.showNotification(push.title, {
    body: push.body,
    tag: push.tag,
    actions: push.actions,
    data: p,
    icon: '/icon-192.png',
    badge: '/icon-192.png',
    // A question replacing an older one still alerts; it stays until acted on.
    renotify: true,
    requireInteraction: p.kind === 'attention',
  });
}

sw.addEventListener('push', (e) => {
  let data: unknown = null;
  try {
    data = e.data?.json() ?? null;
  } catch {
    // Not JSON: shown plainly below (a push the page does not show must show a notification).
  }
  const p = payloadOf(data);
  if (!p) {
    e.waitUntil(sw.registration.showNotification('Termio', { body: 'A session may need you: open Termio.', tag: 'termio', data: null }));
    return;
  }
  e.waitUntil(show(p));
});

/** Focuses an open page of this companion (telling it which session to show), or opens one. */
async function openSession(url: string, session: string | null): Promise<void> {
  const page = (await companionPages())[0];
  if (page) {
    if (session) page.postMessage({ t: 'open', session });
    // A browser lets a worker focus a window only in answer to a tap on a notification.
    await page.focus().catch(() => undefined);
    return;
  }
  await sw.clients.openWindow(url);
}

/** What an action or a tap on a shown notification does; resolves with what happened. */
async function act(notification: Shown, action: string): Promise<'answered' | 'opened'> {
  notification.close();
  const p = payloadOf(notification.data);
  const choice = choiceOfAction(action);
  // Refused (the question moved on) or the host cannot be reached: the page shows why.
  if (p?.question && choice !== null && (await answerPush(p.question.token, choice)).ok) return 'answered';
  await openSession(p?.url ?? '/', p?.session ?? null);
  return 'opened';
}

sw.addEventListener('notificationclick', (e) => e.waitUntil(act(e.notification, e.action)));

// A page of this origin may choose a shown notification's action as a tap would (the tests do:
// no browser lets a script click a system notification). Only the origin's own pages can post
// here, and they hold the pairing token already; a push cannot.
sw.addEventListener('message', (e) => {
  const m = e.data as { t?: string; tag?: string; action?: string; reply?: { postMessage(m: unknown): void } } | null;
  if (m?.t !== 'notificationAction' || typeof m.tag !== 'string') return;
  e.waitUntil(
    sw.registration.getNotifications({ tag: m.tag }).then(async (shown) => {
      const n = shown[0];
      const outcome = n ? await act(n, m.action ?? '').catch((err: unknown) => `failed: ${String(err)}`) : 'none';
      m.reply?.postMessage({ outcome });
    }),
  );
});
