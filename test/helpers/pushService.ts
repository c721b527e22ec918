// A push service of the tests' own, on loopback, speaking RFC 8030 the way the browser vendors'
// do: a subscription is an https endpoint; a push is a POST to it with a TTL header, answered 201.
// Each push is checked as a real service would — VAPID (RFC 8292): `Authorization: vapid t=<JWT>,
// k=<public key>`, the JWT's ES256 signature verified with node:crypto against k, its `aud` this
// service's origin and `exp` in the future — and its aes128gcm body (RFC 8291) is decrypted with
// the subscription's private keys by the npm `http_ece` library, as the device would. The
// subscription's keys are made here, as a browser makes them: an ECDH prime256v1 pair and 16
// random auth bytes. A test may have the service answer with another status (410, 429, …).
// TLS: a throwaway self-signed certificate; the host trusts it through NODE_EXTRA_CA_CERTS.
import { spawnSync } from 'node:child_process';
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, globalAgent, type Server } from 'node:https';
import { rootCertificates } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PushSubscriptionJson } from '../../src/protocol/push';

const ece = require('http_ece') as { decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer };

export interface ReceivedPush {
  subscription: string;
  /** performance.timeOrigin + performance.now() when the request's body was in. */
  at: number;
  ttl: number;
  topic: string | null;
  urgency: string | null;
  /** The decrypted body, as text. */
  plaintext: string;
  /** What the service answered. */
  status: number;
}

interface Sub {
  ecdh: ECDH;
  auth: Buffer;
  /** Answers to give, in order, before falling back to 201. */
  answers: Array<{ status: number; headers?: Record<string, string> }>;
}

export interface PushService {
  origin: string;
  /** The PEM file of the service's certificate (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  received: ReceivedPush[];
  /** Problems found in requests (a bad JWT, a body that does not decrypt): a test expects none. */
  problems: string[];
  /** A new subscription, as PushSubscription.toJSON() gives it, and its id here. */
  subscribe(): { id: string; json: PushSubscriptionJson };
  /** When each request arrived (its body in), whatever its path: a benchmark's reference POSTs
   *  to `/ref`, which is answered 404 like any path that is no subscription. */
  arrivals: Array<{ path: string; at: number }>;
  /** The next pushes to this subscription get these answers (then 201 again). */
  answerNext(id: string, ...answers: Array<{ status: number; headers?: Record<string, string> }>): void;
  close(): Promise<void>;
}

const b64u = (b: Buffer): string => b.toString('base64url');

/** Checks `Authorization: vapid t=…, k=…`; returns what is wrong, or null. */
export function checkVapid(header: string | undefined, origin: string, nowS: number): string | null {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) return `Authorization is not "vapid t=…, k=…": ${header ?? 'none'}`;
  const [, jwt, k] = m as unknown as [string, string, string];
  const [h, p, sig] = jwt.split('.');
  if (!h || !p || !sig) return 'the JWT does not have three parts';
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return 'k is not an uncompressed P-256 point';
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) }, format: 'jwk' });
  const jose = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
  if (jose.alg !== 'ES256') return `the JWT's alg is ${jose.alg}`;
  if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url')))
    return 'the JWT signature does not verify against k';
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { aud?: string; exp?: number; sub?: string };
  if (claims.aud !== origin) return `aud is ${claims.aud}, not ${origin}`;
  if (typeof claims.exp !== 'number' || claims.exp <= nowS) return `exp ${claims.exp} is not in the future`;
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return `sub ${claims.sub} is not a mailto: or https: URL`;
  return null;
}

/** Makes this process trust the service's certificate for the host's pushes (web-push sends
 *  through Node's global https agent); a host process of its own takes NODE_EXTRA_CA_CERTS
 *  instead. Returns the undo. */
export function trustPushService(service: PushService): () => void {
  const saved = globalAgent.options.ca;
  globalAgent.options.ca = [...rootCertificates, readFileSync(service.caFile, 'utf8')];
  return () => {
    globalAgent.options.ca = saved;
  };
}

export async function startPushService(): Promise<PushService> {
  const dir = mkdtempSync(join(tmpdir(), 'tpush-'));
  const cert = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  );
  if (cert.status !== 0) throw new Error(`openssl: ${cert.stderr}`);
  const subs = new Map<string, Sub>();
  const received: ReceivedPush[] = [];
  const problems: string[] = [];
  const arrivals: PushService['arrivals'] = [];
  let origin = '';
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      arrivals.push({ path: req.url ?? '', at });
      const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
      const sub = id ? subs.get(id) : undefined;
      if (req.method !== 'POST' || !id || !sub) return void res.writeHead(404).end();
      const problem = (what: string): void => {
        problems.push(what);
        res.writeHead(400).end(what);
      };
      const ttl = Number(req.headers.ttl);
      if (req.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0) return problem(`TTL header missing or bad: ${req.headers.ttl}`);
      if (req.headers['content-encoding'] !== 'aes128gcm') return problem(`Content-Encoding is ${req.headers['content-encoding']}`);
      const vapid = checkVapid(req.headers.authorization, origin, Date.now() / 1000);
      if (vapid) return problem(vapid);
      let plaintext: string;
      try {
        plaintext = ece.decrypt(Buffer.concat(chunks), { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: b64u(sub.auth) }).toString('utf8');
      } catch (err) {
        return problem(`the body does not decrypt: ${(err as Error).message}`);
      }
      const answer = sub.answers.shift() ?? { status: 201, headers: { Location: `${origin}/message/${randomBytes(8).toString('hex')}` } };
      received.push({
        subscription: id,
        at,
        ttl,
        topic: (req.headers.topic as string | undefined) ?? null,
        urgency: (req.headers.urgency as string | undefined) ?? null,
        plaintext,
        status: answer.status,
      });
      res.writeHead(answer.status, answer.headers ?? {}).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  origin = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    origin,
    caFile: join(dir, 'cert.pem'),
    received,
    problems,
    arrivals,
    subscribe() {
      const id = randomBytes(9).toString('base64url');
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      subs.set(id, { ecdh, auth, answers: [] });
      return { id, json: { endpoint: `${origin}/push/${id}`, expirationTime: null, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) } } };
    },
    answerNext(id, ...answers) {
      subs.get(id)?.answers.push(...answers);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
