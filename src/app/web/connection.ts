// The page's link to the host: the token (moved from the URL fragment into this browser's
// storage, sent in a header or a WebSocket subprotocol, never in a URL), the session list API,
// the WebSocket, a heartbeat that notices a dead link after the phone slept, and reconnecting
// with backoff — each reconnect starts over with a fresh list and a fresh terminal snapshot.
import type { CompanionClientMessage, CompanionServerMessage } from '../../protocol/companion';
import { AUTH_SUBPROTOCOL_PREFIX, CLOSE_REVOKED, COMPANION_SUBPROTOCOL } from '../../protocol/companionWire';

const TOKEN_KEY = 'termio.companion.token';
/** Backoff between attempts: quick at first (a blip), then every 15 s at most (a host that is
 *  off for a while costs the phone almost nothing). */
export const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15_000];
/** A ping every 10 s; no message for 25 s (two missed pongs and some) means the link is dead. */
const PING_MS = 10_000;
const DEAD_MS = 25_000;

export type LinkState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'unpaired'; message: string }
  | { kind: 'revoked' }
  | { kind: 'unreachable'; retryInMs: number; attempt: number };

export interface LinkEvents {
  state(s: LinkState): void;
  message(m: CompanionServerMessage): void;
  output(bytes: Uint8Array): void;
  /** A fresh connection is open (after the first connect or a reconnect). */
  open(): void;
}

/** Takes `#t=<token>` out of the address bar into storage; returns the token to use. */
export function takeToken(): string | null {
  const m = /(?:^#|&)t=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m?.[1]) {
    localStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, '', location.pathname);
  }
  return localStorage.getItem(TOKEN_KEY);
}

export class Link {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private retryTimer: number | null = null;
  private pingTimer: number | null = null;
  private lastHeard = 0;
  private stopped = false;

  constructor(
    private readonly token: string,
    private readonly on: LinkEvents,
  ) {
    addEventListener('online', () => this.retryNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.checkAlive();
    });
  }

  send(msg: CompanionClientMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  async connect(): Promise<void> {
    if (this.stopped) return;
    this.clearRetry();
    this.on.state({ kind: 'connecting' });
    let res: Response;
    try {
      res = await fetch('/api/sessions', { headers: { Authorization: `Bearer ${this.token}` }, cache: 'no-store' });
    } catch {
      return this.scheduleRetry();
    }
    if (res.status === 401 || res.status === 429) {
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      this.on.state({ kind: 'unpaired', message: body.error ?? `the host refused the pairing token (${res.status})` });
      return;
    }
    if (!res.ok) return this.scheduleRetry();
    this.on.message((await res.json()) as CompanionServerMessage);
    this.openSocket();
  }

  private openSocket(): void {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, [
      COMPANION_SUBPROTOCOL,
      `${AUTH_SUBPROTOCOL_PREFIX}${this.token}`,
    ]);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.on.state({ kind: 'live' });
      this.on.open();
      this.startPing();
    };
    ws.onmessage = (e: MessageEvent<string | ArrayBuffer>) => {
      this.lastHeard = Date.now();
      if (typeof e.data === 'string') this.on.message(JSON.parse(e.data) as CompanionServerMessage);
      else this.on.output(new Uint8Array(e.data));
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      if (e.code === CLOSE_REVOKED) {
        this.stopped = true;
        this.on.state({ kind: 'revoked' });
        return;
      }
      // Refused at the handshake (a token revoked while away, say): ask the API at once, once,
      // since it says why; a second refusal in a row backs off like any failure.
      this.scheduleRetry(!opened && this.attempt === 0);
    };
  }

  private startPing(): void {
    this.stopPing();
    this.pingTimer = window.setInterval(() => {
      this.send({ t: 'ping' });
      this.checkAlive();
    }, PING_MS);
  }

  private stopPing(): void {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  /** After sleep the socket may look open but be dead: nothing heard for a while means so. */
  private checkAlive(): void {
    if (this.ws && Date.now() - this.lastHeard > DEAD_MS) this.ws.close();
    else if (!this.ws) this.retryNow();
    else this.send({ t: 'ping' });
  }

  private scheduleRetry(immediate = false): void {
    if (this.stopped) return;
    const wait = immediate ? 0 : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt++;
    if (!immediate) this.on.state({ kind: 'unreachable', retryInMs: wait, attempt: this.attempt });
    this.clearRetry();
    this.retryTimer = window.setTimeout(() => void this.connect(), wait);
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Try again at once (the user asked, or the network came back). */
  retryNow(): void {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    void this.connect();
  }
}
