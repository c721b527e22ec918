// A paired page on the companion's WebSocket against a real host (in this process, so the test
// can watch the session's own emulator): watching never resizes the session; typing makes the
// page the input holder under the same rule as every client, and the session takes its size;
// a flooding session is sent as snapshots within a budget, not byte for byte.
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { OUTPUT_BUDGET_BYTES } from '../../../src/app/host/companion/pageLink';
import type { CompanionServerMessage } from '../../../src/protocol/companion';
import { AUTH_SUBPROTOCOL_PREFIX, COMPANION_SUBPROTOCOL } from '../../../src/protocol/companionWire';
import type { HostEvent } from '../../../src/protocol/hostMessages';
import { startHostInProcess } from '../../helpers/companionHost';
import { waitFor } from '../../helpers/waitFor';

type Host = Awaited<ReturnType<typeof startHostInProcess>>;
let host: Host | null = null;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await host?.stop();
  host = null;
});

async function page(h: Host): Promise<{ ws: WebSocket; messages: CompanionServerMessage[]; bytes: () => number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${h.port}/ws`, [COMPANION_SUBPROTOCOL, `${AUTH_SUBPROTOCOL_PREFIX}${h.token()}`], { origin: h.base });
  sockets.push(ws);
  const messages: CompanionServerMessage[] = [];
  let bytes = 0;
  ws.on('message', (data: Buffer, binary) => {
    if (binary) bytes += data.length;
    else messages.push(JSON.parse(data.toString('utf8')) as CompanionServerMessage);
  });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  return { ws, messages, bytes: () => bytes };
}

it('watching keeps the session size; typing takes the input and the size, like any client', async () => {
  host = await startHostInProcess();
  const id = await host.spawnShell('sized');
  const session = host.host.registry.get(id)!.session;
  const app = await host.client();
  const events: HostEvent[] = [];
  app.onEvent((e) => events.push(e));
  app.onFrame((h) => app.ack(h.view, h.seq));
  await app.request('attach', { session: id, view: 1, cols: 100, rows: 30 });
  expect([session.cols, session.rows]).toEqual([100, 30]);

  const p = await page(host);
  p.ws.send(JSON.stringify({ t: 'attach', session: id, cols: 50, rows: 20 }));
  const attached = await waitFor(() => p.messages.find((m) => m.t === 'attached'), { what: 'the snapshot' });
  expect(attached).toMatchObject({ cols: 100, rows: 30, holding: false });
  expect([session.cols, session.rows]).toEqual([100, 30]);

  p.ws.send(JSON.stringify({ t: 'input', data: 'echo from-page\r' }));
  await waitFor(() => session.screenLines().includes('from-page'), { what: 'the page’s input in the session' });
  expect([session.cols, session.rows]).toEqual([50, 20]);
  await waitFor(() => p.messages.some((m) => m.t === 'resize' && m.cols === 50 && m.rows === 20), { what: 'the resize on the page' });
  await waitFor(() => p.messages.some((m) => m.t === 'holding' && m.holding), { what: 'the page to hold the input' });
  await waitFor(() => events.some((e) => e.event === 'input' && !e.holding), { what: 'the app view to lose the input' });

  app.input(1, { kind: 'text', text: 'echo from-app\r' });
  await waitFor(() => session.screenLines().includes('from-app'), { what: 'the app’s input' });
  expect([session.cols, session.rows]).toEqual([100, 30]);
  await waitFor(() => p.messages.some((m) => m.t === 'holding' && !m.holding), { what: 'the page to lose the input' });
  await waitFor(() => p.messages.some((m) => m.t === 'resize' && m.cols === 100), { what: 'the page to follow the size back' });
});

it('sends a flooding session within its budget, catching up with snapshots', async () => {
  host = await startHostInProcess();
  const c = await host.client();
  const r = await c.request('sessions.run', { cwd: host.home, argv: ['/bin/sh', '-c', 'yes "flooding the companion page with a long line of text"'] });
  if (!r.ok) throw new Error(r.error.message);
  const session = host.host.registry.get(r.result.session.id)!.session;
  let parsed = 0;
  session.onOutput((b) => (parsed += b.length));
  const p = await page(host);
  p.ws.send(JSON.stringify({ t: 'attach', session: session.id, cols: 80, rows: 24 }));
  await waitFor(() => p.messages.some((m) => m.t === 'attached'), { what: 'the first snapshot' });
  const [parsed0, sent0, t0] = [parsed, p.bytes(), Date.now()];
  await waitFor(() => p.messages.filter((m) => m.t === 'attached').length >= 4, { what: 'catch-up snapshots during the flood' });
  const seconds = (Date.now() - t0) / 1000;
  const sent = p.bytes() - sent0;
  // The session parsed far more than the page was sent, and the page got at most its budget.
  expect(parsed - parsed0).toBeGreaterThan(4 * sent);
  expect(sent).toBeLessThanOrEqual(OUTPUT_BUDGET_BYTES * 10 * (seconds + 0.2));
  // The last snapshot is the session's screen of a moment ago: the flood's line.
  const last = p.messages.filter((m) => m.t === 'attached').at(-1) as Extract<CompanionServerMessage, { t: 'attached' }>;
  expect(last.snapshot).toContain('flooding the companion page');
});

it('ignores what a page sends wrong, answers a missing session, and stays up', async () => {
  host = await startHostInProcess();
  const p = await page(host);
  for (const bad of [
    'not json',
    '{"t":"nope"}',
    '{"t":"input"}',
    '{"t":"attach","session":"x","cols":0,"rows":5}',
    JSON.stringify({ t: 'input', data: 'x'.repeat(600 * 1024) }),
  ])
    p.ws.send(bad);
  p.ws.send(Buffer.from([1, 2, 3]));
  p.ws.send(JSON.stringify({ t: 'attach', session: 'no-such-session', cols: 40, rows: 20 }));
  await waitFor(() => p.messages.find((m) => m.t === 'detached'), { what: 'the answer about the missing session' });
  expect(p.messages.find((m) => m.t === 'detached')).toEqual({ t: 'detached', session: 'no-such-session', reason: 'noSuchSession' });
  p.ws.send(JSON.stringify({ t: 'ping' }));
  await waitFor(() => p.messages.some((m) => m.t === 'pong'), { what: 'a pong: the page is still connected' });
  // A message past the size limit ends that page's connection (1009), and only that one.
  const other = await page(host);
  const closed = new Promise<number>((r) => p.ws.once('close', (code) => r(code)));
  p.ws.send('x'.repeat(3 * 1024 * 1024));
  expect(await closed).toBe(1009);
  other.ws.send(JSON.stringify({ t: 'ping' }));
  await waitFor(() => other.messages.some((m) => m.t === 'pong'), { what: 'the other page still answered' });
});
