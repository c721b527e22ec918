// "Notify this phone": the page's service worker, and this device's Web Push subscription with
// the host. Subscribing asks the browser for permission, subscribes with the host's VAPID key
// (GET /api/push/key) and registers the subscription (POST /api/push/subscriptions) under a device
// id this page keeps; turning it off unsubscribes and removes it (DELETE). States: on, off, not
// supported (with what to do: iOS pushes only to a web app added to the Home Screen, over HTTPS),
// denied (blocked in the browser's settings).
import type { PushOptions } from '../../protocol/push';

const DEVICE_KEY = 'termio.push.device';

export type PushState = 'on' | 'off' | 'unsupported' | 'denied' | 'busy';

/** The service worker, registered on secure pages (browsers allow none elsewhere). */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration> | null {
  if (!('serviceWorker' in navigator) || !isSecureContext) return null;
  return navigator.serviceWorker.register('/sw.js', { scope: '/' });
}

/** iOS and iPadOS deliver pushes only to a web app on the Home Screen: Safari itself has no
 *  PushManager there. */
export function needsHomeScreen(): boolean {
  const apple = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  return apple && isSecureContext && !('PushManager' in window);
}

/** Why this browser cannot be notified, in words; null when it can. */
export function unsupportedReason(): string | null {
  if (!isSecureContext) return 'Notifications on this phone need the page over HTTPS (see "HTTPS" in Termio\'s companion docs).';
  if (needsHomeScreen()) return 'Add to Home Screen first (Share → Add to Home Screen), then open Termio from the Home Screen to be notified.';
  if (!('serviceWorker' in navigator)) return 'This browser cannot run the page in the background, so it cannot be notified.';
  if (!('PushManager' in window)) return 'This browser does not support push notifications.';
  return null;
}

/** This device's id with the host: made once, kept in the page's storage. */
function deviceId(): string {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

/** A name the user recognises in Termio's device list: the kind of device and browser. */
export function deviceName(ua: string): string {
  const device = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android'
        : /Mac OS X/.test(ua)
          ? 'Mac'
          : /Windows/.test(ua)
            ? 'Windows'
            : /Linux/.test(ua)
              ? 'Linux'
              : 'Device';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : '';
  return browser ? `${device} · ${browser}` : device;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

export class PhonePush {
  constructor(
    private readonly token: string,
    private readonly registration: Promise<ServiceWorkerRegistration>,
  ) {}

  private async api(method: string, path: string, body?: unknown): Promise<unknown> {
    const r = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await r.json().catch(() => ({}))) as { error?: string };
    if (!r.ok) throw new Error(json.error ?? `the host answered ${r.status}`);
    return json;
  }

  /** Where this device stands now; a subscription the browser still has is registered again
   *  (the host may have dropped it: a revoke, or its file was removed). */
  async state(options?: PushOptions): Promise<PushState> {
    if (unsupportedReason()) return 'unsupported';
    if (Notification.permission === 'denied') return 'denied';
    const sub = await (await this.registration).pushManager.getSubscription();
    if (!sub) return 'off';
    await this.register(sub, options);
    return 'on';
  }

  private register(sub: PushSubscription, options?: PushOptions): Promise<unknown> {
    return this.api('POST', '/api/push/subscriptions', {
      device: deviceId(),
      name: deviceName(navigator.userAgent),
      subscription: sub.toJSON(),
      options: options || undefined,
    });
  }

  /** Asks for permission, subscribes and registers; the new state. */
  async turnOn(options: PushOptions): Promise<PushState> {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') return permission === 'denied' ? 'denied' : 'off';
    const { publicKey } = (await this.api('GET', '/api/push/key')) as { publicKey: string };
    const reg = await this.registration;
    const old = await reg.pushManager.getSubscription();
    const sub = old ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
    await this.register(sub, options);
    return 'on';
  }

  async turnOff(): Promise<PushState> {
    const sub = await (await this.registration).pushManager.getSubscription();
    await sub?.unsubscribe();
    await this.api('DELETE', '/api/push/subscriptions', { device: deviceId() }).catch(() => undefined);
    return 'off';
  }
}
