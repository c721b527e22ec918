// Hostile input to the control socket: garbage, partial and oversized frames, unknown verbs, wrong
// types, a silent client, a flood of pipelined requests, a watcher that stops reading, 1,000 concurrent
// clients. Each gets an error reply or a closed connection; the server keeps answering ping.
// (The host runs in this process: a crash or an unhandled rejection fails the run.)
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/protocol/controlFrames';
import { MAX_PENDING_INPUT_BYTES } from '../../src/terminal/node';
import { rawConnect, startTestHost, type RawPeer, type TestHost } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';

let host: TestHost | null = null;
afterEach(async () => {
  await host?.dispose();
  host = null;
});

const ping = (seq: number | string = 'p') => encodeFrame({ v: 1, seq, verb: 'ping' });

/** The server still works: a fresh connection gets a pong. */
async function stillAnswers(h: TestHost): Promise<void> {
  const p = await rawConnect(h.socket);
  p.socket.write(ping('alive'));
  await waitFor(() => p.lines.length > 0, { what: 'a pong' });
  expect(p.replies()[0]).toEqual({ v: 1, seq: 'alive', ok: true, result: { pong: true, protocol: 1 } });
  p.socket.destroy();
}

async function replyTo(p: RawPeer, frame: string | Buffer, n = 1) {
  const before = p.lines.length;
  p.socket.write(frame);
  await waitFor(() => p.lines.length >= before + n || p.isClosed(), { what: 'a reply' });
  return p.replies().slice(before);
}

describe('control socket under abuse', () => {
  it('answers garbage, wrong types and unknown verbs with error replies and keeps the connection', async () => {
    host = await startTestHost();
    const p = await rawConnect(host.socket);
    const code = async (frame: string | Buffer) => ((await replyTo(p, frame))[0]?.error as { code: string } | undefined)?.code;
    expect(await code('hello there\n')).toBe('badFrame');
    expect(await code(Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a]))).toBe('badFrame');
    expect(await code('{"v":1,"verb":\n')).toBe('badFrame');
    expect(await code('"just a string"\n')).toBe('badFrame');
    expect(await code('{"v":1,"verb":"sessions.nuke"}\n')).toBe('unknownVerb');
    expect(await code('{"v":1,"verb":"__proto__"}\n')).toBe('unknownVerb');
    expect(await code('{"v":2,"verb":"ping"}\n')).toBe('unsupportedVersion');
    expect(await code('{"v":"1","verb":"ping"}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":42}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":"sessions.read","args":{"id":["a"]}}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":"sessions.send","args":{"id":"a","text":null}}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":"sessions.read","args":{"id":"a","lines":1e9}}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":"app.open","args":{"dir":"../../etc"}}\n')).toBe('badRequest');
    expect(await code('{"v":1,"verb":"sessions.focus","args":{"id":"nobody"}}\n')).toBe('noSuchSession');
    expect(p.isClosed()).toBe(false);
    // Blank lines and CRLF are tolerated; the connection still serves.
    expect(await replyTo(p, `\n\r\n${ping(1).replace('\n', '\r\n')}`)).toEqual([{ v: 1, seq: 1, ok: true, result: { pong: true, protocol: 1 } }]);
    p.socket.destroy();
    await stillAnswers(host);
  });

  it('a partial frame followed by a hang-up or by its rest', async () => {
    host = await startTestHost();
    const hangUp = await rawConnect(host.socket);
    hangUp.socket.end('{"v":1,"verb":"pi');
    await hangUp.closed;
    expect(hangUp.lines).toEqual([]);
    // The same frame in three pieces is one request.
    const slow = await rawConnect(host.socket);
    slow.socket.write('{"v":1,');
    slow.socket.write('"seq":9,"verb":"pi');
    expect(await replyTo(slow, 'ng"}\n')).toEqual([{ v: 1, seq: 9, ok: true, result: { pong: true, protocol: 1 } }]);
    slow.socket.destroy();
    await stillAnswers(host);
  });

  it('cuts off an oversized frame with frameTooLarge, without buffering it', async () => {
    host = await startTestHost({ limits: { maxFrameChars: 4096 } });
    const p = await rawConnect(host.socket);
    // No newline at all: the server must not wait for one.
    p.socket.write(`{"v":1,"verb":"sessions.send","args":{"id":"x","text":"${'A'.repeat(10_000)}`);
    await p.closed;
    expect(p.replies()).toEqual([{ v: 1, ok: false, error: { code: 'frameTooLarge', message: 'a frame is limited to 4096 characters' } }]);
    // One just under the limit is fine.
    const q = await rawConnect(host.socket);
    const frame = encodeFrame({ v: 1, seq: 1, verb: 'sessions.send', args: { id: 'x', text: 'B'.repeat(3900) } });
    expect(frame.length).toBeLessThan(4096);
    expect((await replyTo(q, frame))[0]).toMatchObject({ seq: 1, ok: false, error: { code: 'noSuchSession' } });
    q.socket.destroy();
    await stillAnswers(host);
  });

  it('closes a client that connects and says nothing, while others are served', async () => {
    host = await startTestHost({ limits: { idleTimeoutMs: 300 } });
    const silent = await rawConnect(host.socket);
    await stillAnswers(host);
    await waitFor(() => silent.isClosed(), { what: 'the silent client to be closed', timeout: 5_000 });
    expect(silent.lines).toEqual([]);
    await waitFor(() => host?.server.connectionCount === 0, { what: 'no connections left' });
  });

  it('answers a flood of pipelined requests up to the queue bound, then busy', async () => {
    host = await startTestHost({ limits: { maxQueuedRequests: 16 } });
    const p = await rawConnect(host.socket);
    p.socket.write(Array.from({ length: 1000 }, (_, i) => ping(i)).join(''));
    await p.closed;
    const replies = p.replies();
    expect(replies.at(-1)).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(replies.filter((r) => r.ok === true).length).toBeLessThanOrEqual(16);
    await stillAnswers(host);
  });

  it('closes a client that keeps writing after busy once the grace is over', async () => {
    host = await startTestHost({ limits: { maxQueuedRequests: 4, closeGraceMs: 300 } });
    const p = await rawConnect(host.socket);
    p.socket.pause();
    p.socket.write(Array.from({ length: 50 }, (_, i) => ping(i)).join(''));
    // Every write would reset an idle timer: the grace must not be one.
    const drip = setInterval(() => p.socket.writable && p.socket.write(ping('more')), 50);
    try {
      await waitFor(() => host?.server.connectionCount === 0, { what: 'the writing client to be closed', timeout: 5_000 });
    } finally {
      clearInterval(drip);
    }
    p.socket.destroy();
    await stillAnswers(host);
  });

  it('closes a client turned away as busy even if it keeps writing', async () => {
    host = await startTestHost({ limits: { maxConnections: 1, closeGraceMs: 300 } });
    const holder = await rawConnect(host.socket);
    await waitFor(() => host?.server.connectionCount === 1, { what: 'the first client to be taken in' });
    const extra = await rawConnect(host.socket);
    // Not reading, it never sees the server's end: it writes on, as the attack does.
    extra.socket.pause();
    const drip = setInterval(() => extra.socket.writable && extra.socket.write(ping('more')), 50);
    try {
      // Its next write after the server let go fails, and the socket closes.
      await waitFor(() => extra.isClosed(), { what: 'the busy client to be closed', timeout: 5_000 });
    } finally {
      clearInterval(drip);
    }
    holder.socket.destroy();
    await waitFor(() => host?.server.connectionCount === 0, { what: 'the first client to go' });
    await stillAnswers(host);
  });

  it('bounds the input queued to a program that does not read: past the cap a send is refused, and closing lets it go', async () => {
    host = await startTestHost();
    const c = await host.client();
    const run = await c.request('sessions.run', { argv: ['sleep', '600'] });
    if (!run.ok) throw new Error(run.error.message);
    const id = (run.result as { id: string }).id;
    const session = host.registry.get(id)!.session;
    const half = 'x'.repeat(512 * 1024);
    const outcomes: string[] = [];
    let message = '';
    // 40 × 512 KiB is five times the cap: sleep reads none of it (the kernel's line buffer takes a little).
    for (let i = 0; i < 40 && !outcomes.includes('busy'); i++) {
      const r = await c.request('sessions.send', { id, text: half });
      outcomes.push(r.ok ? 'ok' : r.error.code);
      if (!r.ok) message = r.error.message;
      // The pty's own queue is what is measured: it holds what sleep never reads.
      expect(session.pendingInput).toBeLessThanOrEqual(MAX_PENDING_INPUT_BYTES);
    }
    expect(outcomes.at(-1)).toBe('busy');
    expect(outcomes.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(session.pendingInput).toBeGreaterThan(MAX_PENDING_INPUT_BYTES - 1024 * 1024);
    expect(message).toContain(`session ${id} has not read the input it was sent`);
    host.registry.close(id);
    expect(session.pendingInput).toBe(0);
    await stillAnswers(host);
  });

  it('drops a watcher that stops reading once its unread replies pass the bound', async () => {
    host = await startTestHost({ limits: { maxPendingOutputChars: 64 * 1024 } });
    const c = await host.client();
    const s = await c.request('sessions.spawn', {});
    if (!s.ok) throw new Error(s.error.message);
    const id = (s.result as { id: string }).id;
    const w = await rawConnect(host.socket);
    w.socket.write(encodeFrame({ v: 1, seq: 'w', verb: 'sessions.watch' }));
    await waitFor(() => w.lines.length === 1, { what: 'the snapshot' });
    w.socket.pause();
    // Each event is ~400 bytes; 20,000 of them overflow the kernel's socket buffers and then the bound.
    for (let i = 0; i < 20_000 && !w.socket.destroyed && host.server.connectionCount > 1; i++) {
      host.registry.setState(id, i % 2 ? 'working' : 'idle', `flood ${i}`);
    }
    await waitFor(() => host?.server.connectionCount === 1, { what: 'the stalled watcher to be dropped' });
    await stillAnswers(host);
  });

  it('survives 1,000 concurrent clients: each gets a reply or a closed connection, none hangs', async () => {
    host = await startTestHost();
    const h = host;
    // Open all 1,000 first and keep them open together, then have every one send a ping at once.
    // They connect in waves, each once the server has taken the previous one in (accepted, or told
    // busy): clients and server share this process, and the kernel's listen backlog (511) would
    // otherwise refuse connections the server never had the chance to see.
    const peers: RawPeer[] = [];
    for (let wave = 0; wave < 10; wave++) {
      peers.push(...(await Promise.all(Array.from({ length: 100 }, () => rawConnect(h.socket)))));
      await waitFor(() => h.server.connectionCount + peers.filter((p) => p.lines.length > 0 || p.isClosed()).length === peers.length, {
        what: `wave ${wave} to be taken in`,
      });
    }
    for (const [i, p] of peers.entries()) if (!p.isClosed()) p.socket.write(ping(i));
    const outcomes = await Promise.all(
      peers.map(async (p, i) => {
        await waitFor(() => p.lines.length > 0 || p.isClosed(), { what: `client ${i}`, timeout: 15_000 });
        const first = p.lines.length ? (p.replies()[0] as { ok: boolean; error?: { code: string } }) : null;
        return first === null ? 'closed' : first.ok ? 'pong' : (first.error?.code ?? 'error');
      }),
    );
    for (const p of peers) p.socket.destroy();
    const tally: Record<string, number> = {};
    for (const o of outcomes) tally[o] = (tally[o] ?? 0) + 1;
    expect(Object.keys(tally).filter((k) => !['pong', 'busy', 'closed'].includes(k))).toEqual([]);
    // Up to the connection limit are served; the rest are told the server is busy.
    expect(tally.pong).toBe(h.server.limits.maxConnections);
    expect(tally.busy ?? 0).toBe(1000 - h.server.limits.maxConnections);
    await waitFor(() => h.server.connectionCount === 0, { what: 'every connection to be released' });
    await stillAnswers(h);
  }, 60_000);
});
