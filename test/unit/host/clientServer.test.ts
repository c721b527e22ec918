// The host's client protocol over a real Unix socket, against a real session host (in this
// process) running real shells on real ptys: handshake, refusals, snapshots and dirty rows,
// pacing by acknowledgement, input as intent and who holds it, scrollback, find, selection.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostClient } from '../../../src/app/client/hostClient';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { packageVersion } from '../../../src/app/services/install';
import { nullLogger } from '../../../src/app/services/log';
import { encodeJsonMessage, HOST_PROTOCOL_VERSION, MessageDecoder, type DecodedMessage, type FramingError } from '../../../src/protocol/hostFraming';
import { attach, mirrorFrames, type ScreenMirror } from '../../helpers/hostScreen';
import { waitFor } from '../../helpers/waitFor';

let dir: string;
let host: HostProcess;
const clients: HostClient[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'termio-hostproto-'));
  const env = { ...process.env, HOME: dir, TERMIO_HOME: join(dir, '.termio') };
  const r = await HostProcess.start({ env, logger: nullLogger, idleExitMs: 0 });
  if (!r.ok) throw new Error(r.message);
  host = r.host;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.destroy();
  await host.stop('test over');
  rmSync(dir, { recursive: true, force: true });
});

async function connect(protocol?: number): Promise<HostClient> {
  const c = await HostClient.connect(host.socketPath, { client: 'test', version: '0', ...(protocol !== undefined ? { protocol } : {}) });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  clients.push(c);
  return c;
}

/** A shell with a quiet prompt, so screens are easy to assert. */
async function spawnShell(c: HostClient, opts: { cols?: number; rows?: number } = {}): Promise<string> {
  const r = await c.request('sessions.run', { cwd: dir, argv: ['/bin/sh'], ...opts });
  if (!r.ok) throw new Error(r.error.message);
  const id = r.result.session.id;
  const s = host.registry.get(id)!.session;
  s.write("PS1='$ '\n");
  // Ready once the new prompt shows: what is typed from then on is read by the shell, not by a
  // terminal that is still being set up.
  await waitFor(() => s.screenLines({ lines: 1 })[0]?.trimEnd().endsWith('$'), { what: 'the shell prompt' });
  return id;
}

function typeLine(c: HostClient, view: number, text: string): void {
  for (const ch of text) c.input(view, { kind: 'key', key: ch === ' ' ? 'Space' : ch, text: ch });
  c.input(view, { kind: 'key', key: 'Enter' });
}

/** A raw socket speaking bytes, for what a well-behaved client would never send. */
function rawSocket(): Promise<{ socket: Socket; messages: Array<DecodedMessage | FramingError>; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(host.socketPath);
    sockets.push(socket);
    const decoder = new MessageDecoder(1 << 24);
    const messages: Array<DecodedMessage | FramingError> = [];
    socket.on('data', (b: Buffer) => messages.push(...decoder.push(b)));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, messages, closed }));
  });
}

describe('handshake', () => {
  it('answers a hello with its protocol, version and capabilities; the socket is 0600 in a 0700 folder', async () => {
    const c = await connect();
    expect(c.hello).toMatchObject({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, hostVersion: packageVersion(), pid: process.pid });
    expect(c.hello.capabilities).toEqual(expect.arrayContaining(['frames', 'rows', 'find', 'selectionText', 'input']));
    expect(statSync(host.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.termio', 'run')).mode & 0o777).toBe(0o700);
  });

  it('refuses another protocol version, saying which versions, the host version, its pid (to stop it) and that it keeps agents through a restart', async () => {
    const r = await HostClient.connect(host.socketPath, { client: 'old-app', version: '0.0.1', protocol: HOST_PROTOCOL_VERSION + 1 });
    expect(r).toEqual({
      kind: 'versionMismatch',
      protocol: HOST_PROTOCOL_VERSION,
      hostVersion: packageVersion(),
      pid: process.pid,
      // Session holders are built (scripts/setup.mjs): a SIGUSR2 restart keeps every agent.
      keepsAgents: true,
      message: `this host (Termio ${packageVersion()}) speaks protocol ${HOST_PROTOCOL_VERSION}; the client (old-app 0.0.1) speaks ${HOST_PROTOCOL_VERSION + 1}`,
    });
  });

  it('refuses a first message that is not a hello, then closes', async () => {
    const raw = await rawSocket();
    raw.socket.write(encodeJsonMessage({ t: 'req', id: 1, method: 'sessions.list' }));
    await raw.closed;
    expect(raw.messages).toEqual([
      { kind: 'json', value: { t: 'error', code: 'handshakeRequired', message: "the first message must be a hello, not a 'req'" } },
    ]);
  });
});

describe('garbage and oversized messages', () => {
  it('answers text garbage with an error and closes that connection only', async () => {
    const other = await connect();
    const raw = await rawSocket();
    raw.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await raw.closed;
    expect(raw.messages).toEqual([
      { kind: 'json', value: { t: 'error', code: 'oversized', message: 'a message of 1195725856 bytes is over the limit of 1048576 bytes' } },
    ]);
    expect((await other.request('sessions.list', {})).ok).toBe(true);
  });

  it('refuses an oversized message by its length, before its body arrives', async () => {
    const raw = await rawSocket();
    raw.socket.write(encodeJsonMessage({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, client: 'raw', version: '0' }));
    const head = Buffer.alloc(5);
    head.writeUInt32BE(2 * 1024 * 1024, 0);
    head[4] = 1;
    raw.socket.write(head);
    await raw.closed;
    expect(raw.messages.map((m) => (m.kind === 'json' ? (m.value as { t: string; code?: string }) : m))).toEqual([
      expect.objectContaining({ t: 'hello' }),
      { t: 'error', code: 'oversized', message: 'a message of 2097152 bytes is over the limit of 1048576 bytes' },
    ]);
  });

  it('answers well-framed nonsense with errors naming the field and keeps the connection', async () => {
    const c = await connect();
    expect(await c.request('nope' as 'sessions.list', {})).toEqual({
      ok: false,
      error: { code: 'unknownMethod', message: expect.stringContaining("unknown method 'nope'") },
    });
    expect(await c.request('attach', { session: 'x', view: 1, cols: 0, rows: 24 })).toEqual({
      ok: false,
      error: { code: 'badParams', message: 'attach: cols: Too small: expected number to be >=1' },
    });
    expect(await c.request('attach', { session: 'nope', view: 1, cols: 80, rows: 24 })).toEqual({
      ok: false,
      error: { code: 'noSuchSession', message: "no session matches 'nope'" },
    });
    expect(await c.request('sessions.spawn', { cwd: join(dir, 'missing') })).toEqual({
      ok: false,
      error: { code: 'badDirectory', message: `'${join(dir, 'missing')}' is not an existing folder` },
    });
    expect(await c.request('sessions.run', { cwd: dir, argv: ['no-such-command-here'] })).toEqual({
      ok: false,
      error: { code: 'spawnFailed', message: 'command not found or not executable: no-such-command-here' },
    });
    expect((await c.request('sessions.list', {})).ok).toBe(true);
  });
});

describe('attach, frames and pacing', () => {
  it('sends a snapshot at the client size, then only the rows that changed', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c, { cols: 80, rows: 24 });
    host.registry.get(id)!.session.write('echo before-attach\n');
    await waitFor(
      () =>
        host.registry
          .get(id)!
          .session.screenLines()
          .some((l) => l === 'before-attach'),
      {
        what: 'the output in the emulator',
      },
    );
    const m = await attach(c, mirrors, id, 1, 100, 30);
    expect(m.frames[0]).toMatchObject({ full: true, cols: 100, rows: 30, title: expect.any(String), state: 'idle', exit: null });
    await m.waitForText('before-attach');
    const s = host.registry.get(id)!.session;
    expect([s.cols, s.rows]).toEqual([100, 30]);

    const before = m.frames.length;
    typeLine(c, 1, 'echo hi-there');
    await m.waitForText(/^hi-there$/m);
    const later = m.frames.slice(before);
    expect(later.every((f) => !f.full)).toBe(true);
    // Typing a line and its output touch a handful of rows, never the whole screen.
    expect(Math.max(...m.rowCounts.slice(before))).toBeLessThanOrEqual(3);
    expect(m.header!.cursor.visible).toBe(true);
  });

  it('never sends a view more than one unacknowledged frame, and the pty runs on regardless', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 1);
    m.autoAck = false;
    m.ackLast();
    const frames = m.frames.length;
    host.registry.get(id)!.session.write('seq 1 100000; echo flood-done\n');
    // The session parses all of it though the client acknowledges nothing.
    await waitFor(() => host.registry.get(id)!.session.screenLines().includes('flood-done'), { what: 'the flood to finish in the emulator', timeout: 30_000 });
    expect(m.frames.length).toBe(frames + 1);
    // One acknowledgement: the next frame is the latest state, not the next step of a backlog.
    m.ackLast();
    await waitFor(() => m.frames.length === frames + 2);
    expect(m.text()).toMatch(/^100000$/m);
    expect(m.text()).toMatch(/^flood-done$/m);
  });

  it('gives the input and the size to the newest view that attached or typed', async () => {
    const a = await connect();
    const b = await connect();
    const ma = mirrorFrames(a);
    const mb = mirrorFrames(b);
    const id = await spawnShell(a);
    const s = host.registry.get(id)!.session;
    const va = await attach(a, ma, id, 1, 80, 24);
    await waitFor(() => va.holding === true);
    const vb = await attach(b, mb, id, 1, 120, 40);
    await waitFor(() => vb.holding === true && va.holding === false);
    expect([s.cols, s.rows]).toEqual([120, 40]);
    // A resize from a view that does not hold the input is kept for later, not applied.
    a.input(1, { kind: 'resize', cols: 90, rows: 20 });
    typeLine(b, 1, 'echo from-b');
    await vb.waitForText(/^from-b$/m);
    expect([s.cols, s.rows]).toEqual([120, 40]);
    typeLine(a, 1, 'echo from-a');
    await waitFor(() => va.holding === true && vb.holding === false);
    expect([s.cols, s.rows]).toEqual([90, 20]);
    await va.waitForText(/^from-a$/m);
    await vb.waitForText(/^from-a$/m);
    expect(vb.header).toMatchObject({ cols: 90, rows: 20 });
  });

  it('encodes key intents with the modes the application set (application cursor keys)', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 1);
    typeLine(c, 1, "printf '\\033[?1h'; stty -echo -icanon; head -c 3 | od -An -c; stty sane");
    await waitFor(() => m.header?.modes.applicationCursorKeys === true, { what: 'application cursor keys in the frame header' });
    c.input(1, { kind: 'key', key: 'ArrowUp' });
    await m.waitForText(/033\s+O\s+A/);
  });

  it('encodes mouse and paste intents with the modes the application set (SGR mouse, bracketed paste)', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 1);
    typeLine(c, 1, "printf '\\033[?1000h\\033[?1006h\\033[?2004h'; stty -echo -icanon; head -c 23 | od -An -c; stty sane");
    await waitFor(() => m.header?.modes.mouseTracking === 'vt200' && m.header.modes.bracketedPaste, {
      what: 'mouse tracking and bracketed paste in the frame header',
    });
    c.input(1, { kind: 'mouse', action: 'press', button: 'left', col: 2, row: 1 });
    c.input(1, { kind: 'paste', text: 'p' });
    // ESC [ < 0 ; 3 ; 2 M (9 bytes), then ESC [ 2 0 0 ~ p ESC [ 2 0 1 ~ (13 bytes) and one more key.
    c.input(1, { kind: 'key', key: 'z', text: 'z' });
    await m.waitForText(/033\s+\[\s+<\s+0\s+;\s+3\s+;\s+2\s+M\s+033\s+\[\s+2\s+0\s+0\s+~/);
    await m.waitForText(/p\s+033\s+\[\s+2\s+0\s+1\s+~\s+z/);
  });

  it('shows the exit status in the frame, and forgets the ended session once its last view detaches', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 2);
    typeLine(c, 2, 'exit 3');
    await waitFor(() => m.header?.exit?.exitCode === 3, { what: 'the exit status in a frame' });
    const listed = await c.request('sessions.list', {});
    expect(listed.ok && listed.result.sessions.map((x) => [x.id, x.exited])).toEqual([[id, { exitCode: 3 }]]);
    expect(await c.request('detach', { view: 2 })).toEqual({ ok: true, result: {} });
    const after = await c.request('sessions.list', {});
    expect(after.ok && after.result.sessions).toEqual([]);
  });

  it('tells a view its session was closed', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m: ScreenMirror = await attach(c, mirrors, id, 3);
    expect((await c.request('sessions.close', { id: id.slice(0, 8) })).ok).toBe(true);
    await waitFor(() => m.detached === 'sessionClosed');
    expect(await c.request('detach', { view: 3 })).toMatchObject({ ok: false, error: { code: 'noSuchView' } });
  });
});

describe('requests about the buffer', () => {
  it('pages scrollback rows, finds text and returns selection text', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 1);
    typeLine(c, 1, 'seq 1 500; echo seq-done');
    await m.waitForText(/^seq-done$/m);
    const list = await c.request('find', { view: 1, query: 'seq-done' });
    if (!list.ok) throw new Error(list.error.message);
    // The command line and its output.
    expect(list.result.total).toBe(2);
    const rowsOf1 = host.registry.get(id)!.session.emulator.buffer.active;
    let first = -1;
    for (let y = 0; y < rowsOf1.length; y++) if (rowsOf1.getLine(y)?.translateToString(true) === '1') first = y;
    const r = await c.rows({ view: 1, first, count: 5 });
    if (!r.ok) throw new Error(r.error.message);
    const { collectRows, rowText } = await import('../../../src/protocol/hostFrame');
    expect(collectRows(r.reader).map((row) => rowText(row.runs))).toEqual(['1', '2', '3', '4', '5']);
    expect(r.header).toMatchObject({ first, cols: 80 });
    const sel = await c.request('selectionText', { view: 1, start: { x: 0, y: first + 1 }, end: { x: 80, y: first + 3 }, mode: 'line' });
    expect(sel).toEqual({ ok: true, result: { text: '2\n3\n4', truncated: false } });
    // The host's own model never keeps the borrowed selection.
    expect(host.registry.get(id)!.session.renderModel.hasSelection).toBe(false);
  });
});

describe('many and misbehaving clients', () => {
  it('serves 50 clients attached to one session at once', async () => {
    const first = await connect();
    const id = await spawnShell(first);
    const views: ScreenMirror[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const c = i === 0 ? first : await connect();
        views.push(await attach(c, mirrorFrames(c), id, 1));
      }),
    );
    expect(host.server.clientCount).toBe(50);
    const typist = views[49]!;
    typeLine(typist.client, 1, 'echo fifty-clients');
    await Promise.all(views.map((v) => v.waitForText(/^fifty-clients$/m)));
    const list = await first.request('sessions.list', {});
    expect(list.ok && list.result.sessions[0]!.views).toBe(50);
  });

  it('shrugs off a client that disconnects in the middle of a message, or while frames flow', async () => {
    const c = await connect();
    const mirrors = mirrorFrames(c);
    const id = await spawnShell(c);
    const m = await attach(c, mirrors, id, 1);
    const raw = await rawSocket();
    const hello = encodeJsonMessage({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, client: 'raw', version: '0' });
    const att = encodeJsonMessage({ t: 'req', id: 1, method: 'attach', params: { session: id, view: 1, cols: 80, rows: 24 } });
    raw.socket.write(Buffer.concat([hello, att]));
    await waitFor(() => raw.messages.some((msg) => msg.kind === 'frame'));
    // Half of a message, then gone; and the output keeps coming while it leaves.
    host.registry.get(id)!.session.write('seq 1 20000\n');
    raw.socket.end(encodeJsonMessage({ t: 'ack', view: 1, seq: 1 }).subarray(0, 7));
    await raw.closed;
    await waitFor(() => host.server.clientCount === 1, { what: 'the host to drop the raw client' });
    // The output that flowed while the other client left reaches this one, and so does typing.
    await m.waitForText(/^20000\n\$/m);
    typeLine(c, 1, 'echo still-here');
    await m.waitForText(/^still-here$/m);
  });
});
