// Typing into a TUI the way it expects, against a real pty running a fake that submits only on a
// Return of its own (as Codex does): the text goes as a bracketed paste once the program turned
// mode 2004 on, and Return follows once the echo settled. Writing "text\r" in one go leaves it in
// the composer, so the fake tells the two apart. Through `sessions send`, a spawn's first prompt
// and the phone page's input.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SessionFacts } from '../../../src/app/host/sessions/sessionFacts';
import { SessionRegistry, shellSpawner } from '../../../src/app/host/sessions/sessionRegistry';
import { SessionWaits } from '../../../src/app/host/sessions/sessionWaits';
import { defaultTypingLimits, pasteShown, splitTypedChunk, typeText } from '../../../src/app/host/sessions/typeInput';
import { AUTH_SUBPROTOCOL_PREFIX, COMPANION_SUBPROTOCOL } from '../../../src/protocol/companionWire';
import { Session } from '../../../src/terminal/node';
import { startHostInProcess } from '../../helpers/companionHost';
import { termio, startTestHost, type TestHost } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';

const fake = join(__dirname, '..', '..', 'fakes', 'fakePasteTui.mjs');
const sessions: Session[] = [];
let host: TestHost | null = null;
let companion: Awaited<ReturnType<typeof startHostInProcess>> | null = null;
const sockets: WebSocket[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  for (const s of sessions.splice(0)) s.dispose();
  for (const ws of sockets.splice(0)) ws.terminate();
  await host?.dispose();
  host = null;
  await companion?.stop();
  companion = null;
});

async function startFake(args: string[] = []): Promise<Session> {
  const s = Session.spawn({ argv: [process.execPath, fake, ...args], cwd: __dirname, env: { HOME: __dirname } });
  if (!(s instanceof Session)) throw new Error(s.message);
  sessions.push(s);
  await waitFor(() => s.screenLines().includes('ready>'), { what: 'the fake TUI to start' });
  await s.whenParsed();
  return s;
}

const screen = (s: Session) => s.screenLines().join('\n');

describe('typeText', () => {
  it('pastes the text and presses Return on its own once the echo settled: the fake submits it', async () => {
    const s = await startFake();
    expect(s.inputModes.bracketedPaste).toBe(true);
    await typeText(s, 'say hi', true);
    await waitFor(() => screen(s).includes('submitted: say hi'), { what: `the submit (screen: ${screen(s)})` });
    // Several lines are one message, submitted once.
    await typeText(s, 'line one\nline two', true);
    await waitFor(() => screen(s).includes('submitted: line one⏎line two'), { what: `one submit of both lines (screen: ${screen(s)})` });
    expect(screen(s).match(/submitted:/g)).toHaveLength(2);
  });

  it('without --enter leaves the text in the composer', async () => {
    const s = await startFake();
    await typeText(s, 'draft only', false);
    await waitFor(() => screen(s).includes('composer: draft only'), { what: 'the draft in the composer' });
    expect(screen(s)).not.toContain('submitted:');
  });

  it('the fake keeps a Return that arrives with the text in its composer (why Return is a key of its own)', async () => {
    const s = await startFake();
    s.write('say hi\r');
    await waitFor(() => screen(s).includes('composer: say hi⏎'), { what: 'the text and its Return in the composer' });
    expect(screen(s)).not.toContain('submitted:');
  });

  it('waits for the echo of a TUI that reads nothing for seconds (starved of CPU), then presses Return', async () => {
    // A Return sent before the fake reads would be read with the paste and kept in the composer.
    const s = await startFake(['--stall-ms', '3000']);
    await typeText(s, 'say hi', true);
    await waitFor(() => screen(s).includes('submitted: say hi'), { what: `the submit (screen: ${screen(s)})` });
    expect(screen(s)).not.toContain('say hi⏎');
  });

  it('types plain text into a program without bracketed paste, then Return on its own', async () => {
    const s = await startFake(['--no-paste-mode']);
    expect(s.inputModes.bracketedPaste).toBe(false);
    await typeText(s, 'plain words', true);
    await waitFor(() => screen(s).includes('submitted: plain words'), { what: `the submit (screen: ${screen(s)})` });
  });
});

describe('pasteShown', () => {
  it('finds the start of the first line, the end of the last, or a paste placeholder; not an empty composer', () => {
    expect(pasteShown(['┃  Fix   the failing test in upload.ts', '┃'], 'Fix the failing test in upload.ts')).toBe(true);
    expect(pasteShown(['┃ …and then run the whole suite'], 'first line\nand then run the whole suite')).toBe(true);
    expect(pasteShown(['> [Pasted text #1 +12 lines]'], 'a\nb\nc')).toBe(true);
    expect(pasteShown(['┃  Ask anything… "Fix broken tests"', '┃  Build · Loopback model'], 'Run touch probe.txt')).toBe(false);
  });
});

describe('splitTypedChunk (the phone page)', () => {
  it('takes several characters as text and a Return at their end as its own key; keys stay keys', () => {
    expect(splitTypedChunk('hello there\r')).toEqual({ text: 'hello there', enter: true });
    expect(splitTypedChunk('hello there')).toEqual({ text: 'hello there', enter: false });
    expect(splitTypedChunk('a')).toBeNull();
    expect(splitTypedChunk('\r')).toBeNull();
    expect(splitTypedChunk('\x1b[A')).toBeNull();
    expect(splitTypedChunk('\x1b[200~pasted\x1b[201~')).toBeNull();
    expect(splitTypedChunk('ab\x7f')).toBeNull();
  });
});

describe('through the host', () => {
  it('termio sessions send --enter and the first prompt of a spawn submit into the fake', async () => {
    host = await startTestHost();
    const h = host;
    const r = await termio(['sessions', 'run', '--json', '--', process.execPath, fake], h.env);
    expect(r.status).toBe(0);
    const id = JSON.parse(r.stdout).id as string;
    const s = h.registry.get(id)!.session;
    await waitFor(() => screen(s).includes('ready>'), { what: 'the fake TUI to start' });
    const sent = await termio(['sessions', 'send', id, 'fix the failing test', '--enter'], h.env);
    expect(sent.stderr).toBe('');
    await waitFor(() => screen(s).includes('submitted: fix the failing test'), { what: `the sent message submitted (screen: ${screen(s)})` });
    // A spawn's first prompt goes the same way once the program is ready.
    expect(await h.server.waits.deliverPrompt(id, 'first prompt')).toBe(true);
    await waitFor(() => screen(s).includes('submitted: first prompt'), { what: `the first prompt submitted (screen: ${screen(s)})` });
  });

  it('send --enter into a dialog that shows nothing of a paste answers at once with why, and presses no Return', async () => {
    // OpenCode's permission prompt: the echo never comes. The answer must come well within the
    // 10 s a control connection may stay silent, or the CLI reports "the app closed the connection".
    host = await startTestHost();
    const h = host;
    const r = await termio(['sessions', 'run', '--json', '--', process.execPath, fake, '--dialog'], h.env);
    expect(r.status).toBe(0);
    const id = JSON.parse(r.stdout).id as string;
    const s = h.registry.get(id)!.session;
    await waitFor(() => screen(s).includes('Allow once'), { what: 'the fake dialog' });
    const sent = await termio(['sessions', 'send', id, 'Try again', '--enter', '--json'], h.env);
    expect(JSON.parse(sent.stdout)).toMatchObject({ ok: false, code: 'notReady', message: expect.stringContaining('Return was not pressed') });
    expect(sent.status).not.toBe(0);
    // The Return would have chosen the dialog's button; the fake reads its input, so one sent would show by now.
    s.write('\x04');
    await waitFor(() => s.exited !== null, { what: 'the fake to read its input and end' });
    expect(screen(s)).not.toContain('chose:');
  });

  it("a spawn's first prompt waits for a starved TUI's echo past send's bound, and ends notReady in a dialog that shows none", async () => {
    const registry = new SessionRegistry({ spawner: shellSpawner() });
    cleanups.push(() => registry.dispose());
    /** The fake started with `args`, and the waits that deliver its first prompt: the echo may take until `readyTimeoutMs`. */
    const start = async (args: string[], readyTimeoutMs: number) => {
      const waits = new SessionWaits({ registry, describe: (r) => new SessionFacts().info(r), limits: { readyTimeoutMs } });
      cleanups.unshift(() => waits.dispose());
      const spawned = await registry.spawn({ cwd: __dirname, argv: [process.execPath, fake, ...args] });
      if (!spawned.ok) throw new Error(spawned.message);
      return { s: spawned.record.session, waits };
    };
    // Reads nothing for longer than `sessions send` waits for an echo: the prompt is still submitted.
    const stalled = await start(['--stall-ms', String(defaultTypingLimits.pasteEchoMs + 1_000)], 30_000);
    expect(await stalled.waits.deliverPrompt(stalled.s.id, 'first prompt')).toBe(true);
    await waitFor(() => screen(stalled.s).includes('submitted: first prompt'), { what: `the first prompt submitted (screen: ${screen(stalled.s)})` });
    // A dialog that draws nothing of the paste gets no Return, and the turn's wait says why.
    const dialog = await start(['--dialog'], defaultTypingLimits.pasteEchoMs);
    const delivered = dialog.waits.deliverPrompt(dialog.s.id, 'first prompt');
    const turn = dialog.waits.wait(dialog.s.id, 'turn', 60_000);
    expect(await delivered).toBe(false);
    expect(await turn).toMatchObject({ outcome: 'notReady' });
    dialog.s.write('\x04');
    await waitFor(() => dialog.s.exited !== null, { what: 'the fake to read its input and end' });
    expect(screen(dialog.s)).not.toContain('chose:');
  }, 60_000);

  it("a spawn's first prompt is pasted again when the TUI dropped it and redrew an empty composer", async () => {
    const registry = new SessionRegistry({ spawner: shellSpawner() });
    cleanups.push(() => registry.dispose());
    const waits = new SessionWaits({ registry, describe: (r) => new SessionFacts().info(r) });
    cleanups.unshift(() => waits.dispose());
    const spawned = await registry.spawn({ cwd: __dirname, argv: [process.execPath, fake, '--drop-first', '1'] });
    if (!spawned.ok) throw new Error(spawned.message);
    const s = spawned.record.session;
    await waitFor(() => screen(s).includes('ready>'), { what: 'the fake TUI to start' });
    expect(await waits.deliverPrompt(s.id, 'first prompt')).toBe(true);
    await waitFor(() => screen(s).includes('submitted: '), { what: `a submit (screen: ${screen(s)})` });
    // Submitted once, with the prompt once: not an empty composer, not the prompt twice.
    expect(screen(s).match(/submitted: .*/g)).toEqual(['submitted: first prompt']);
  });

  it('the phone page types a chunk and its Return so that the fake submits it', async () => {
    companion = await startHostInProcess();
    const c = await companion.client();
    const r = await c.request('sessions.run', { cwd: companion.home, argv: [process.execPath, fake] });
    if (!r.ok) throw new Error(r.error.message);
    const s = companion.host.registry.get(r.result.session.id)!.session;
    await waitFor(() => screen(s).includes('ready>'), { what: 'the fake TUI to start' });
    const ws = new WebSocket(`ws://127.0.0.1:${companion.port}/ws`, [COMPANION_SUBPROTOCOL, `${AUTH_SUBPROTOCOL_PREFIX}${companion.token()}`], {
      origin: companion.base,
    });
    sockets.push(ws);
    const attached = new Promise<void>((resolve) =>
      ws.on('message', (d: Buffer, binary) => !binary && JSON.parse(d.toString('utf8')).t === 'attached' && resolve()),
    );
    await new Promise((res, rej) => ws.once('open', res).once('error', rej));
    ws.send(JSON.stringify({ t: 'attach', session: s.id, cols: 80, rows: 24 }));
    await attached;
    ws.send(JSON.stringify({ t: 'input', data: 'dictated from the phone\r' }));
    await waitFor(() => screen(s).includes('submitted: dictated from the phone'), { what: `the phone's message submitted (screen: ${screen(s)})` });
    // A key pressed right after a chunk goes after it: the second message submits on its own.
    ws.send(JSON.stringify({ t: 'input', data: 'second one' }));
    ws.send(JSON.stringify({ t: 'key', key: 'Enter' }));
    await waitFor(() => screen(s).includes('submitted: second one'), { what: `the second message submitted (screen: ${screen(s)})` });
  });
});
