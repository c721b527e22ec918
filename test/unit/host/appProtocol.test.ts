// What the Termio app asks of the session host, over a real socket to a real host (in this
// process, with its Host services) running real shells: the session's scroll position and
// selection as intents (every view sees them, as a pane's copy mode in tmux), selection text, and
// the app protocol — the snapshot, an event per change, one app at a time, notifications routed to
// an app that shows them itself, and a focus request with no app starting one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostClient } from '../../../src/app/client/hostClient';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { nullLogger } from '../../../src/app/services/log';
import type { NotificationRequest } from '../../../src/app/services/notifier';
import type { HostEvent } from '../../../src/protocol/hostMessages';
import { attach, ScreenMirror } from '../../helpers/hostScreen';
import { waitFor } from '../../helpers/waitFor';

let dir: string;
let host: HostProcess;
const clients: HostClient[] = [];
let started: Array<string | null>;
let posted: NotificationRequest[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'termio-appproto-'));
  started = [];
  posted = [];
  const env = { ...process.env, HOME: dir, TERMIO_HOME: join(dir, '.termio'), SHELL: '/bin/sh' };
  const r = await HostProcess.start({
    env,
    logger: nullLogger,
    idleExitMs: 0,
    path: process.env.PATH ?? '/usr/bin:/bin',
    startApp: (focus) => started.push(focus),
    notificationSink: { send: async (req) => void posted.push(req) },
  });
  if (!r.ok) throw new Error(r.message);
  host = r.host;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await host.stop('test over');
  rmSync(dir, { recursive: true, force: true });
});

/** A client whose frames go to its mirrors and whose other events are kept in order. */
async function connect(): Promise<{ c: HostClient; mirrors: Map<number, ScreenMirror>; events: HostEvent[] }> {
  const c = await HostClient.connect(host.socketPath, { client: 'test-app', version: '0' });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  clients.push(c);
  const mirrors = new Map<number, ScreenMirror>();
  const events: HostEvent[] = [];
  c.onFrame((h, r) => mirrors.get(h.view)?.apply(h, r));
  c.onEvent((e) => events.push(e));
  return { c, mirrors, events };
}

async function shell(c: HostClient): Promise<string> {
  const r = await c.request('sessions.run', { cwd: dir, argv: ['/bin/sh'] });
  if (!r.ok) throw new Error(r.error.message);
  const s = host.registry.get(r.result.session.id)!.session;
  s.write("PS1='$ '\n");
  await waitFor(() => s.screenLines({ lines: 1 })[0]?.trimEnd().endsWith('$'), { what: 'the shell prompt' });
  return r.result.session.id;
}

describe('scroll and selection belong to the session', () => {
  it('scrolls every view back through scrollback and down again, by lines and to either end', async () => {
    const { c, mirrors } = await connect();
    const id = await shell(c);
    const one = await attach(c, mirrors, id, 1, 40, 10);
    host.registry.get(id)!.session.write('seq 1 100\n');
    await one.waitForText(/^100$/m);
    c.input(1, { kind: 'scroll', lines: -30 });
    await waitFor(() => one.header?.scrollOffset === 30, { what: 'the view scrolled back 30 lines' });
    expect(one.text()).not.toMatch(/^100$/m);
    // A second view sees the same rows: the position is the session's.
    const two = await attach(c, mirrors, id, 2, 40, 10);
    expect(two.header?.scrollOffset).toBe(30);
    expect(two.text()).toBe(one.text());
    c.input(1, { kind: 'scroll', to: 'top' });
    await one.waitForText(/seq 1 100/);
    c.input(1, { kind: 'scroll', to: 'bottom' });
    await waitFor(() => one.header?.scrollOffset === 0, { what: 'the view back at the bottom' });
    await one.waitForText(/^100$/m);
  });

  it('selects by word and line from a buffer point, says so in frames, answers its text, and clears', async () => {
    const { c, mirrors } = await connect();
    const id = await shell(c);
    const m = await attach(c, mirrors, id, 1, 40, 10);
    host.registry.get(id)!.session.write('echo alpha beta-gamma delta\n');
    await m.waitForText(/^alpha beta-gamma delta$/m);
    const row = m.rows.findIndex((r) => r === 'alpha beta-gamma delta');
    const y = m.header!.scrollbackLength - m.header!.scrollOffset + row;
    c.input(1, { kind: 'select', action: 'start', at: { x: 7, y }, mode: 'word' });
    await waitFor(() => m.header?.hasSelection, { what: 'a selection in the frame' });
    // Word characters include '-' (paths and flags select whole), as in most terminals.
    expect(m.header!.selection).toEqual([{ row, start: 6, end: 16 }]);
    expect(await c.request('selectionText', { view: 1 })).toMatchObject({ ok: true, result: { text: 'beta-gamma' } });
    // A range of the client's own does not disturb the session's selection.
    const other = await c.request('selectionText', { view: 1, start: { x: 0, y }, end: { x: 5, y } });
    expect(other).toMatchObject({ ok: true, result: { text: 'alpha' } });
    expect(await c.request('selectionText', { view: 1 })).toMatchObject({ ok: true, result: { text: 'beta-gamma' } });
    c.input(1, { kind: 'select', action: 'extend', at: { x: 21, y } });
    await waitFor(() => m.header?.selection[0]?.end === 22, { what: 'the drag to extend the selection' });
    expect(await c.request('selectionText', { view: 1 })).toMatchObject({ ok: true, result: { text: 'beta-gamma delta' } });
    c.input(1, { kind: 'select', action: 'clear' });
    await waitFor(() => m.header?.hasSelection === false, { what: 'the selection cleared' });
    expect(m.header!.selection).toEqual([]);
  });
});

describe('the app protocol', () => {
  it('sends a snapshot, then an event for each session added, renamed, ringing its bell and closed', async () => {
    const { c, events } = await connect();
    const first = await shell(c);
    const snap = await c.request('app.subscribe', { restore: false });
    expect(snap.ok).toBe(true);
    if (!snap.ok) return;
    expect(snap.result.otherApp).toBe(false);
    expect(snap.result.sessions.map((s) => s.id)).toEqual([first]);
    expect(snap.result.sessions[0]).toMatchObject({ id: first, cwd: dir, state: 'idle', exited: null, cols: 80, rows: 24, recovered: false });

    const launched = await c.request('app.launch', { agentId: null, cwd: dir, bypass: false, windowId: 'window-7' });
    expect(launched.ok).toBe(true);
    if (!launched.ok) return;
    const second = launched.result.session.id;
    expect(launched.result.session.windowId).toBe('window-7');
    await waitFor(() => events.some((e) => e.event === 'session' && e.session.id === second), { what: 'the new session announced' });

    expect((await c.request('app.rename', { session: second, title: 'builds' })).ok).toBe(true);
    await waitFor(() => events.some((e) => e.event === 'session' && e.session.id === second && e.session.title === 'builds'), { what: 'the rename announced' });

    host.registry.get(first)!.session.write("printf '\\a'\n");
    await waitFor(() => events.some((e) => e.event === 'bell' && e.id === first), { what: 'the bell' });

    expect((await c.request('sessions.close', { id: second })).ok).toBe(true);
    await waitFor(() => events.some((e) => e.event === 'sessionRemoved' && e.id === second), { what: 'the close announced' });
    expect((await c.request('app.rename', { session: second, title: 'x' })).ok).toBe(false);
  });

  it('sends a spinning title at most once per interval per session, the last one included', async () => {
    const { c, events } = await connect();
    expect((await c.request('app.subscribe', { restore: false })).ok).toBe(true);
    const launched = await c.request('app.launch', { agentId: null, cwd: dir, bypass: false, windowId: 'window-1' });
    if (!launched.ok) throw new Error(launched.error.message);
    const id = launched.result.session.id;
    const s = host.registry.get(id)!.session;
    await waitFor(() => s.screenLines({ lines: 1 })[0]?.trim(), { what: 'the shell prompt' });
    // Thirty titles in one burst, as an agent's spinner over a few seconds.
    s.write("for i in $(seq 1 30); do printf '\\033]0;spin %d\\007' $i; done\n");
    await waitFor(() => events.some((e) => e.event === 'session' && e.session.id === id && e.session.title === 'spin 30'), { what: 'the last title' });
    const titles = events.flatMap((e) => (e.event === 'session' && e.session.id === id && e.session.title.startsWith('spin') ? [e.session.title] : []));
    expect(titles.length).toBeLessThan(30 / 2);
  });

  it('serves one app: a second one is told so, and its activate brings the first forward', async () => {
    const one = await connect();
    const two = await connect();
    expect(await one.c.request('app.subscribe', { restore: false })).toMatchObject({ ok: true, result: { otherApp: false } });
    expect(await two.c.request('app.subscribe', { restore: false })).toMatchObject({ ok: true, result: { otherApp: true } });
    expect((await two.c.request('app.activate', {})).ok).toBe(true);
    await waitFor(() => one.events.some((e) => e.event === 'activate'), { what: 'the first app asked to come forward' });
    expect(two.events.some((e) => e.event === 'activate')).toBe(false);
    // Once the first app is gone, the next one is the app.
    one.c.close();
    const three = await connect();
    await waitFor(
      async () => {
        const r = await three.c.request('app.subscribe', { restore: false });
        return r.ok && !r.result.otherApp;
      },
      { what: 'the next app to take over' },
    );
  });

  it('routes notifications to an app that shows them itself, and posts them from the host otherwise', async () => {
    const { c, events } = await connect();
    const id = await shell(c);
    expect((await c.request('app.subscribe', { restore: false, notifier: 'tray' })).ok).toBe(true);
    host.registry.get(id)!.session.write("printf '\\033]9;from the tray\\a'\n");
    await waitFor(() => events.some((e) => e.event === 'notify' && e.body.includes('from the tray')), { what: 'the notification sent to the app' });
    expect(posted).toEqual([]);
    c.close();
    await waitFor(() => !host.app.appAttached, { what: 'the app to go' });
    host.registry.get(id)!.session.write("printf '\\033]9;from the host\\a'\n");
    await waitFor(() => posted.some((p) => p.message.includes('from the host')), { what: 'the host to post it' });
  });

  it('starts the app to show a session when a focus is asked for and no app is attached', async () => {
    const { c } = await connect();
    const id = await shell(c);
    host.registry.requestFocus(id);
    expect(started).toEqual([id]);
    expect((await c.request('app.subscribe', { restore: false })).ok).toBe(true);
    host.registry.requestFocus(id);
    expect(started).toEqual([id]);
  });
});

describe("the app's view of a session (RemoteTerminal)", () => {
  it('keeps the viewport rows from frames, reports which rows changed, and gets the next frame once the view took one', async () => {
    const { RemoteTerminal } = await import('../../../src/app/client/remoteTerminal');
    const { c } = await connect();
    const id = await shell(c);
    const t = new RemoteTerminal(c, id, 5, { cols: 40, rows: 8 });
    c.onFrame((h, r) => t.applyFrame(h, r));
    let renders = 0;
    t.onRender(() => renders++);
    expect(await t.attach()).toEqual({ ok: true });
    await waitFor(() => renders > 0, { what: 'the first frame' });
    const first = t.update();
    expect(first.dirtyRows).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(first.frame.lines.some((l) => l.text.trimEnd().endsWith('$'))).toBe(true);
    const session = host.registry.get(id)!.session;
    session.write('echo one\n');
    await waitFor(() => t.frame !== null && renders > 1, { what: 'a frame with the echo' });
    // The next frame comes once the view took this one (pacing by acknowledgement, tested on its
    // own in clientServer.test.ts).
    const held = renders;
    session.write('echo two\n');
    await waitFor(() => session.screenLines().includes('two'), { what: 'the host to parse the second echo' });
    const next = t.update();
    expect(next.frame.lines.map((l) => l.text)).toContain('one');
    expect(next.dirtyRows.length).toBeGreaterThan(0);
    expect(next.dirtyRows.length).toBeLessThan(8);
    await waitFor(() => renders > held, { what: 'the next frame once the last was taken' });
    expect(t.update().frame.lines.map((l) => l.text)).toContain('two');
    t.resize(30, 6);
    await waitFor(() => session.cols === 30 && session.rows === 6, { what: 'the session at the view size' });
    t.dispose();
  });

  it('acknowledges a frame as the view takes it, and while the user types once the view painted it', async () => {
    const { RemoteTerminal } = await import('../../../src/app/client/remoteTerminal');
    const { c } = await connect();
    const id = await shell(c);
    const t = new RemoteTerminal(c, id, 6, { cols: 40, rows: 8 });
    c.onFrame((h, r) => t.applyFrame(h, r));
    const acks: number[] = [];
    const ack = c.ack.bind(c);
    c.ack = (view, seq) => {
      acks.push(seq);
      ack(view, seq);
    };
    let renders = 0;
    t.onRender(() => renders++);
    expect(await t.attach()).toEqual({ ok: true });
    await waitFor(() => renders > 0, { what: 'the first frame' });
    t.update();
    expect(acks).toHaveLength(1);
    t.painted();
    expect(acks).toHaveLength(1);
    t.sendKey({ key: 'x', text: 'x' });
    await waitFor(() => renders > 1, { what: 'the echo of the key' });
    expect(t.update().frame.lines.some((l) => l.text.includes('x'))).toBe(true);
    expect(acks).toHaveLength(1);
    t.painted();
    expect(acks).toHaveLength(2);
    t.dispose();
  });
});
