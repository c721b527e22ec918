// The companion's HTTP + WebSocket server: the page's static files for anyone (they hold no
// data), and the JSON API and the WebSocket only for a request carrying the pairing token —
// `Authorization: Bearer <token>` on the API, an `auth.<token>` subprotocol on the WebSocket, so
// the token is never in a URL; the one exception, a push notification's answer, carries a token of
// its own for one question (routes with auth 'none'). Wrong tokens get 401 and count against the
// address (rate limit), as do unknown answer tokens;
// a WebSocket whose Origin is not the page's own is refused; every answer carries a strict
// Content-Security-Policy. A request must name, in its Host header, a name the companion serves
// (so a DNS-rebinding page gets nothing, not even the page); a missing token is no guess. Each
// address may hold a few connections, and a connection that sends no complete request in 10 s
// is dropped.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { AUTH_SUBPROTOCOL_PREFIX, COMPANION_SUBPROTOCOL } from '../../../protocol/companion';
import type { Logger } from '../../services/log';
import type { PairingToken } from './pairingToken';
import { FailureLimiter } from './rateLimit';
import { RefusalLog } from './refusalLog';
import type { Asset } from './staticAssets';

/** Scripts only from the page itself; styles also inline, because xterm.js writes its theme and
 *  cell-size rules into <style> elements at run time (styles cannot run code); images from the
 *  page, data: and blob: URLs (agent icons and the favicon badge are drawn in the page). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Largest message a page may send: a paste of MAX_PAGE_INPUT_CHARS in JSON, with room. */
const MAX_PAGE_MESSAGE_BYTES = 2 * 1024 * 1024;
/** Connections at once: a phone and a couple of browsers; 32 bounds what a scan can hold open.
 *  When full, a newcomer takes the place of an idle connection (see evictFor), so idle sockets
 *  from a few addresses cannot keep a real client out. */
export const MAX_SOCKETS = 32;
/** Connections one address may hold: a browser opens up to 6 per site, plus the WebSocket. */
export const MAX_SOCKETS_PER_ADDRESS = 8;
/** An HTTP request that has not sent its headers within 10 s is not a browser; drop it. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks those timeouts (its default, 30 s, would let them run to 40 s). */
const TIMEOUT_CHECK_MS = 1_000;
/** A connection that sends nothing for this long (no request, no keep-alive use) is closed. */
export const IDLE_SOCKET_MS = 10_000;

export interface CompanionServerOptions {
  assets: Map<string, Asset>;
  token: PairingToken;
  logger: Logger;
  /** The JSON the API answers at /api/sessions. */
  sessions(): unknown;
  /** A paired WebSocket, ready to use. */
  accept(ws: WebSocket): void;
  limiter?: FailureLimiter;
  /** Whether a Host header's name (lower case, no port) is one this companion serves. */
  hostAllowed(name: string): boolean;
  /** Whether the name is one the user added (a proxy's, which may serve the page over https). */
  hostAdded?(name: string): boolean;
  /** Further API requests by path (Web Push's). */
  routes?: Map<string, ApiRoute[]>;
}

/** What an API route answers; `guess`: the request presented a credential that is not known
 *  (an answer token), counted against the address like a wrong pairing token. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  guess?: boolean;
}

/** One API request the server routes: its method, whether it needs the pairing token, and what
 *  it does with the request's JSON body (undefined for GET). */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  auth: 'token' | 'none';
  run(body: unknown): ApiAnswer | Promise<ApiAnswer>;
}

/** Largest JSON body an API request may send: a push subscription is well under 1 KiB. */
export const MAX_API_BODY_BYTES = 16 * 1024;

/** The name in a Host header: lower case, without its port (IPv6 literals keep their brackets). */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const h = header.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:\s]+)(?::\d{1,5})?$/.exec(h);
  return m ? m[1]! : null;
}

const BASE_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 421: 'Misdirected Request', 429: 'Too Many Requests' };

/** A peer on this machine: only a reverse proxy here may say how the browser connected. */
function fromLoopback(req: IncomingMessage): boolean {
  const a = req.socket.remoteAddress ?? '';
  return a === '127.0.0.1' || a === '::1' || a === '::ffff:127.0.0.1';
}

/** A forwarding header's first value (a proxy chain lists one per hop, nearest last). */
function forwarded(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() || undefined;
}

/**
 * The origin the page was loaded from: `http://` + the Host the browser sent; or, when a proxy on
 * this machine (nginx, Caddy, `tailscale serve`) terminated TLS, what it says the browser used:
 * `X-Forwarded-Proto: https` and `X-Forwarded-Host` (when it rewrote Host to ours). Forwarding
 * headers are ignored from any other address, which could forge them.
 */
export function pageOrigin(req: IncomingMessage): string {
  const proxied = fromLoopback(req);
  const scheme = proxied && forwarded(req, 'x-forwarded-proto')?.toLowerCase() === 'https' ? 'https' : 'http';
  const host = (proxied ? forwarded(req, 'x-forwarded-host') : undefined) ?? req.headers.host ?? '';
  return `${scheme}://${host}`;
}

function refusalHeaders(status: 401 | 429): Record<string, string> {
  return status === 401 ? { 'WWW-Authenticate': 'Bearer' } : { 'Retry-After': '60' };
}

/** A request's body as JSON, at most MAX_API_BODY_BYTES. */
function readJsonBody(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_API_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_API_BODY_BYTES) return resolve({ ok: false, status: 413, message: `the body is larger than ${MAX_API_BODY_BYTES} bytes` });
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch (err) {
        resolve({ ok: false, status: 400, message: `the body is not JSON: ${(err as Error).message}` });
      }
    });
    req.on('error', () => resolve({ ok: false, status: 400, message: 'the request was cut off' }));
  });
}

function bearer(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  return typeof h === 'string' && h.startsWith('Bearer ') ? h.slice('Bearer '.length).trim() : null;
}

function subprotocolToken(req: IncomingMessage): string | null {
  const h = req.headers['sec-websocket-protocol'];
  if (typeof h !== 'string') return null;
  const p = h
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith(AUTH_SUBPROTOCOL_PREFIX));
  return p ? p.slice(AUTH_SUBPROTOCOL_PREFIX.length) : null;
}

/** What the server knows of one connection, for choosing which to close when all are taken. */
interface Connection {
  address: string;
  /** A request on it was answered with a success (the page, an asset, the API with the token). */
  answered: boolean;
  /** A request on it is being answered now. */
  busy: boolean;
  /** It became a paired page's WebSocket: never closed for room. */
  paired: boolean;
}

export class CompanionServer {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly limiter: FailureLimiter;
  /** Every open connection, oldest first, with what it has shown of itself. */
  private readonly sockets = new Map<Socket, Connection>();
  private readonly perAddress = new Map<string, number>();
  /** Each connection's deadline for its next request's headers (see awaitHeaders). */
  private readonly headerDeadlines = new WeakMap<Socket, NodeJS.Timeout>();
  private readonly refusals: RefusalLog;

  private constructor(private readonly opts: CompanionServerOptions) {
    this.limiter = opts.limiter ?? new FailureLimiter();
    this.refusals = new RefusalLog(opts.logger);
    this.http = createServer(
      { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
      (req, res) => this.handle(req, res),
    );
    this.http.on('connection', (s: Socket) => this.connected(s));
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_PAGE_MESSAGE_BYTES,
      handleProtocols: (protocols) => (protocols.has(COMPANION_SUBPROTOCOL) ? COMPANION_SUBPROTOCOL : false),
    });
    this.http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** Listens on host:port; a port in use (or not allowed) is a value with the reason. */
  static listen(opts: CompanionServerOptions, host: string, port: number): Promise<{ ok: true; server: CompanionServer } | { ok: false; message: string }> {
    const s = new CompanionServer(opts);
    return new Promise((resolve) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        resolve({
          ok: false,
          message:
            err.code === 'EADDRINUSE' ? `port ${port} is in use by another program; pick another port` : `cannot listen on ${host}:${port}: ${err.message}`,
        });
      };
      s.http.once('error', onError);
      s.http.listen(port, host, () => {
        s.http.off('error', onError);
        s.http.on('error', (err) => opts.logger.warn('companion server error', { error: err.message }));
        resolve({ ok: true, server: s });
      });
    });
  }

  get port(): number {
    const a = this.http.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  /** Counts the connection against its address (refused past the cap) and drops it when idle. */
  private connected(s: Socket): void {
    const address = s.remoteAddress ?? 'unknown';
    const held = this.perAddress.get(address) ?? 0;
    if (held >= MAX_SOCKETS_PER_ADDRESS) {
      this.refusals.warn(address, 'companion: connection refused, this address holds too many', { limit: String(MAX_SOCKETS_PER_ADDRESS) });
      s.destroy();
      return;
    }
    if (this.sockets.size >= MAX_SOCKETS) {
      const victim = this.evictFor(address);
      if (!victim) {
        this.refusals.warn(address, 'companion: connection refused, every connection is in use', { limit: String(MAX_SOCKETS) });
        s.destroy();
        return;
      }
      const v = this.sockets.get(victim)!;
      this.refusals.warn(v.address, 'companion: idle connection closed to make room for another client', { limit: String(MAX_SOCKETS) });
      this.forget(victim);
      victim.destroy();
    }
    this.perAddress.set(address, held + 1);
    this.sockets.set(s, { address, answered: false, busy: false, paired: false });
    s.setTimeout(IDLE_SOCKET_MS, () => s.destroy());
    this.awaitHeaders(s);
    s.on('close', () => {
      this.headersArrived(s);
      this.forget(s);
    });
  }

  /** Stops counting a connection (once, whether it closed or was evicted). */
  private forget(s: Socket): void {
    const c = this.sockets.get(s);
    if (!c) return;
    this.sockets.delete(s);
    const n = (this.perAddress.get(c.address) ?? 1) - 1;
    if (n > 0) this.perAddress.set(c.address, n);
    else this.perAddress.delete(c.address);
  }

  /**
   * The connection a newcomer from `address` replaces when every place is taken, or null. Never a
   * paired page, nor one whose request is being answered. Among the idle: first those that never
   * had a request answered, then from the address holding the most connections (an address with
   * a pile of idle sockets loses one before a client with one), then the oldest.
   */
  private evictFor(address: string): Socket | null {
    let best: { socket: Socket; rank: [number, number] } | null = null;
    for (const [socket, c] of this.sockets) {
      if (c.paired || c.busy) continue;
      const rank: [number, number] = [c.answered ? 1 : 0, -(this.perAddress.get(c.address) ?? 0)];
      // Oldest first on a tie: the map is in opening order, so the first seen wins.
      if (!best || rank[0] < best.rank[0] || (rank[0] === best.rank[0] && rank[1] < best.rank[1])) best = { socket, rank };
    }
    // A newcomer does not take the place of a client holding no more than its own address would.
    if (best && best.rank[0] === 1 && -best.rank[1] <= (this.perAddress.get(address) ?? 0)) return null;
    return best?.socket ?? null;
  }

  /**
   * Our own headers deadline, armed when a connection opens and after each response. Node's
   * headersTimeout sweep counts only connections that have begun a request, and a drip of one byte
   * a second keeps the idle timer from firing; a CI run saw a drip outlive both for 40 s.
   */
  private awaitHeaders(s: Socket): void {
    clearTimeout(this.headerDeadlines.get(s));
    const t = setTimeout(() => s.destroy(), HEADERS_TIMEOUT_MS);
    t.unref();
    this.headerDeadlines.set(s, t);
  }

  private headersArrived(s: Socket): void {
    clearTimeout(this.headerDeadlines.get(s));
    this.headerDeadlines.delete(s);
  }

  /** A request naming a host this companion does not serve (a rebinding page, a stray proxy). */
  private misdirected(req: IncomingMessage): boolean {
    const name = hostName(req.headers.host);
    if (name !== null && this.opts.hostAllowed(name)) return false;
    this.refusals.warn(CompanionServer.address(req), 'companion: request for a host name it does not serve refused', { host: req.headers.host ?? null });
    return true;
  }

  /** The address a request came from, for the rate limit. */
  private static address(req: IncomingMessage): string {
    return req.socket.remoteAddress ?? 'unknown';
  }

  /** 429 when the address is refused, 401 for a wrong token, null when the token is right. */
  private check(req: IncomingMessage, token: string | null): { status: 401 | 429; message: string } | null {
    const address = CompanionServer.address(req);
    if (this.limiter.blocked(address)) return { status: 429, message: 'too many wrong tokens from this address; wait a minute' };
    if (token === null) return { status: 401, message: "pair first: open the link from Termio's Settings → Phone" };
    if (!this.opts.token.matches(token)) {
      // Only a token presented and wrong is a guess: any web page can make requests with none.
      if (this.limiter.fail(address)) this.opts.logger.warn('companion: address refused after repeated wrong tokens', { address });
      return { status: 401, message: 'this pairing link is not valid any more; scan the QR code again' };
    }
    this.limiter.succeed(address);
    return null;
  }

  private send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
    res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.headersArrived(req.socket);
    const conn = this.sockets.get(req.socket);
    if (conn) conn.busy = true;
    res.once('finish', () => {
      if (conn) {
        conn.busy = false;
        // A request this server served shows a real client: its connection is kept over idle ones.
        if (res.statusCode < 400) conn.answered = true;
      }
      if (!req.socket.destroyed) this.awaitHeaders(req.socket);
    });
    const json = (status: number, value: unknown, extra: Record<string, string> = {}): void =>
      this.send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), { 'Cache-Control': 'no-store', ...extra });
    if (this.misdirected(req)) return json(421, { error: 'this server does not serve that host name' });
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://companion.invalid').pathname;
    } catch {
      return json(400, { error: 'bad request path' });
    }
    const routes = this.opts.routes?.get(path);
    if (routes) return void this.route(req, routes, json);
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: `${req.method} is not allowed here` }, { Allow: 'GET, HEAD' });
    if (path.startsWith('/api/')) {
      const refused = this.check(req, bearer(req));
      if (refused) return json(refused.status, { error: refused.message }, refusalHeaders(refused.status));
      if (path === '/api/sessions') return json(200, this.opts.sessions());
      return json(404, { error: `no API at ${path}` });
    }
    const asset = this.opts.assets.get(path);
    if (!asset) return this.send(res, 404, 'text/plain; charset=utf-8', 'not found', { 'Cache-Control': 'no-store' });
    this.send(res, 200, asset.type, asset.body, { 'Cache-Control': 'no-cache' });
  }

  /** An API request with a route of its own: the method, the token (unless the route carries its
   *  own authority), the JSON body, then the route. */
  private async route(req: IncomingMessage, routes: ApiRoute[], json: (status: number, value: unknown, extra?: Record<string, string>) => void): Promise<void> {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const r = routes.find((x) => x.method === method);
    if (!r) return json(405, { error: `${req.method} is not allowed here` }, { Allow: routes.map((x) => x.method).join(', ') });
    const address = CompanionServer.address(req);
    if (r.auth === 'token') {
      const refused = this.check(req, bearer(req));
      if (refused) return json(refused.status, { error: refused.message }, refusalHeaders(refused.status));
    } else if (this.limiter.blocked(address)) return json(429, { error: 'too many wrong tokens from this address; wait a minute' }, { 'Retry-After': '60' });
    let body: unknown;
    if (method !== 'GET') {
      const read = await readJsonBody(req);
      if (!read.ok) return json(read.status, { error: read.message });
      body = read.value;
    }
    let answer: ApiAnswer;
    try {
      answer = await r.run(body);
    } catch (err) {
      this.opts.logger.error('companion: API request failed', { path: req.url ?? '', error: (err as Error).message });
      return json(500, { error: (err as Error).message });
    }
    if (answer.guess && this.limiter.fail(address)) this.opts.logger.warn('companion: address refused after repeated unknown tokens', { address });
    json(answer.status, answer.body);
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    this.headersArrived(socket);
    const refuse = (status: number, message: string): void => {
      const body = JSON.stringify({ error: message });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Not Found'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    let path = '';
    try {
      path = new URL(req.url ?? '/', 'http://companion.invalid').pathname;
    } catch {
      // Answered as an unknown path below.
    }
    if (this.misdirected(req)) return refuse(421, 'this server does not serve that host name');
    if (path !== '/ws') return refuse(404, 'no WebSocket here');
    // A page from another site must not reach the host through the user's browser: the Origin
    // must be the address this very request was sent to: http:// and its own Host, https:// for a
    // name the user added (a TLS proxy serves it), or what a reverse proxy on this machine says the
    // browser used (X-Forwarded-Proto and -Host, believed from a loopback peer only).
    const origin = req.headers.origin;
    const own = req.headers.host ?? '';
    const tls = this.opts.hostAdded?.(hostName(own) ?? '') === true;
    if (origin !== `http://${own}` && !(tls && origin === `https://${own}`) && origin !== pageOrigin(req)) {
      this.refusals.warn(CompanionServer.address(req), 'companion: WebSocket from another origin refused', {
        origin: origin ?? null,
        host: req.headers.host ?? null,
      });
      return refuse(403, 'the WebSocket must come from the companion page itself');
    }
    const refused = this.check(req, subprotocolToken(req));
    if (refused) return refuse(refused.status, refused.message);
    // A paired page is quiet between messages; the page heartbeat watches it from now on.
    socket.setTimeout(0);
    const conn = this.sockets.get(socket);
    if (conn) conn.paired = true;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.opts.accept(ws));
  }

  /** Stops listening and drops every connection (paired pages included). */
  close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    for (const s of this.sockets.keys()) s.destroy();
    this.wss.close();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }
}
