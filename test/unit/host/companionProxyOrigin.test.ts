// The page's origin as the companion computes it behind a reverse proxy: forwarding headers
// count only from a proxy on this machine.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { pageOrigin } from '../../../src/app/host/companion/companionServer';

describe('the page origin behind a reverse proxy', () => {
  const req = (remoteAddress: string, headers: Record<string, string>) => ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;
  it('is https://<name> only when a proxy on this machine says so', () => {
    expect(pageOrigin(req('127.0.0.1', { host: 'localhost:7681' }))).toBe('http://localhost:7681');
    expect(pageOrigin(req('127.0.0.1', { host: 'pc.tail.ts.net', 'x-forwarded-proto': 'https' }))).toBe('https://pc.tail.ts.net');
    expect(pageOrigin(req('::1', { host: '127.0.0.1:7681', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pc.tail.ts.net' }))).toBe(
      'https://pc.tail.ts.net',
    );
    // From another machine the forwarding headers are not believed.
    expect(pageOrigin(req('192.168.1.20', { host: '192.168.1.5:7681', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }))).toBe(
      'http://192.168.1.5:7681',
    );
  });
});
