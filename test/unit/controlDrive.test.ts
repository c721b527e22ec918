// Driving sessions from the command line, with the real `bin/termio` against a real host on a real
// socket (shells in real ptys): run with its exit code, waits that end on the state, on a timeout
// or when the session needs you, send --wait for the turn it started, a spawn's first prompt typed
// only once the program is ready, the parent a session records, and notify.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { SessionRegistry, shellSpawner } from '../../src/app/host/sessions/sessionRegistry';
import { SessionWaits, type SessionWaitsOptions } from '../../src/app/host/sessions/sessionWaits';
import { SessionFacts } from '../../src/app/host/sessions/sessionFacts';
import { repoRoot, startTestHost, termio, testShell, type TestHost } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';

let host: TestHost | null = null;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await host?.dispose();
  host = null;
});

/** A `termio` command left running (a wait): its exit and output, collected. */
function background(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'termio'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ status: number | null; stdout: string; stderr: string }>((r) => child.on('exit', (status) => r({ status, stdout, stderr })));
  return { child, exit, out: () => stdout };
}

async function shell(h: TestHost, opts: { parentId?: string } = {}): Promise<string> {
  const s = await h.registry.spawn({ cwd: h.home, ...opts });
  if (!s.ok) throw new Error(s.message);
  await waitFor(() => s.record.session.screenLines().some((l) => l.startsWith('$')), { what: 'the shell prompt' });
  return s.record.id;
}

describe('termio sessions run', () => {
  it('runs argv without a shell, keeps the session after exit, and --wait reports the exit code in JSON', async () => {
    host = await startTestHost();
    const h = host;
    const r = await termio(['sessions', 'run', '--wait', '--json', '--', 'sh', '-c', 'echo "two  spaces"; exit 7'], h.env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      schemaVersion: 1,
      ok: true,
      wait: { outcome: 'settled', until: 'exit', lines: ['two  spaces'], session: { exited: { exitCode: 7 } } },
    });
    // The session stays listed with its exit code until someone closes it.
    const list = JSON.parse((await termio(['sessions', 'list', '--json'], h.env)).stdout);
    expect(list.sessions).toMatchObject([{ id: out.id, exited: { exitCode: 7 } }]);
    expect((await termio(['sessions', 'list'], h.env)).stdout).toMatch(/exited 7/);

    // No shell: the arguments reach the program as they are ($HOME stays literal).
    const literal = JSON.parse((await termio(['sessions', 'run', '--wait', '--json', '--', 'echo', '$HOME', 'a;b'], h.env)).stdout);
    expect(literal.wait.lines).toEqual(['$HOME a;b']);

    const bad = await termio(['sessions', 'run', '--wait', 'ls', '-la'], h.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('put -- before the command');
  });
});

describe('termio sessions wait', () => {
  it('exits 3 on a timeout, 0 once the state is reached, 5 when the session needs you', async () => {
    host = await startTestHost();
    const h = host;
    const id = await shell(h);
    h.registry.setState(id, 'working', 'test: working');
    const timedOut = await termio(['sessions', 'wait', id.slice(0, 8), '--timeout', '1', '--json'], h.env);
    expect(timedOut.status).toBe(3);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({ schemaVersion: 1, ok: true, outcome: 'timeout', session: { state: 'working' } });
    expect(JSON.parse(timedOut.stdout).waitedMs).toBeGreaterThanOrEqual(1000);

    // Settles on the state change, with the lines written meanwhile.
    const waiting = background(['sessions', 'wait', id, '--json'], h.env);
    await waitFor(() => h.server.waits.pending === 1, { what: 'the wait to be in place' });
    h.registry.get(id)!.session.write('echo produced\r');
    await waitFor(() => h.registry.get(id)!.session.screenLines().includes('produced'), { what: 'the output' });
    h.registry.setState(id, 'done', 'test: done');
    const settled = await waiting.exit;
    expect(settled.status).toBe(0);
    const body = JSON.parse(settled.stdout);
    expect(body).toMatchObject({ outcome: 'settled', until: 'done', session: { state: 'done' } });
    expect(body.lines).toContain('produced');

    // Waiting for done, the session asks for the user instead: exit 5, with the screen.
    h.registry.setState(id, 'working', 'test: working again');
    const asking = background(['sessions', 'wait', id], h.env);
    await waitFor(() => h.server.waits.pending === 1, { what: 'the wait to be in place' });
    h.registry.setState(id, 'attention', 'test: permission prompt');
    const needsYou = await asking.exit;
    expect(needsYou.status).toBe(5);
    expect(needsYou.stdout).toContain('produced');
    expect(needsYou.stderr).toMatch(/needs you/);

    expect((await termio(['sessions', 'wait', id, '--until', 'soon'], h.env)).status).toBe(2);
    expect(await termio(['sessions', 'wait', 'nobody', '--json'], h.env)).toMatchObject({ status: 1 });
  });

  it('send --wait returns when the turn the message started has ended, not before it began', async () => {
    host = await startTestHost();
    const h = host;
    const id = await shell(h);
    // The shell stands in for an agent: it "works" once it has read the line, then finishes.
    const s = h.registry.get(id)!.session;
    const sending = background(['sessions', 'send', id, 'echo answer', '--enter', '--wait', '--timeout', '20', '--json'], h.env);
    await waitFor(() => s.screenLines().includes('answer'), { what: 'the command to run' });
    // The wait is asked once the text is typed (a second request): in place before the states come.
    await waitFor(() => h.server.waits.pending === 1, { what: 'the wait to be in place' });
    // A done that comes before the turn started (a stale report) does not end the wait.
    h.registry.setState(id, 'done', 'test: stale done');
    h.registry.setState(id, 'working', 'test: the turn');
    h.registry.setState(id, 'done', 'test: the turn ended');
    const r = await sending.exit;
    expect(r.status).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({
      schemaVersion: 1,
      ok: true,
      id,
      wait: { outcome: 'settled', until: 'turn', session: { state: 'done', stateWhy: 'test: the turn ended' } },
    });
    expect(body.wait.lines).toEqual(expect.arrayContaining(['answer']));
  });
});

describe('a wait asked once its work has begun', () => {
  it("begins its lines where the work began: the session's start, or the mark sessions.send answered", async () => {
    host = await startTestHost();
    const h = host;
    const ran = JSON.parse((await termio(['sessions', 'run', '--json', '--', 'sh', '-c', 'echo early-line; exit 3'], h.env)).stdout) as { id: string };
    await waitFor(() => h.registry.get(ran.id)?.session.exited != null, { what: 'the command to exit' });
    const c = await ControlClient.connect(h.env);
    if (!(c instanceof ControlClient)) throw new Error(c.message);
    cleanups.push(() => c.close());
    const fromStart = await c.request('sessions.wait', { id: ran.id, until: 'exit', timeoutMs: 5_000, since: 'start' });
    expect(fromStart).toMatchObject({ ok: true, result: { outcome: 'settled', lines: ['early-line'] } });
    // Without since, a wait's lines begin when it is asked: here, after everything.
    expect(await c.request('sessions.wait', { id: ran.id, until: 'exit', timeoutMs: 5_000 })).toMatchObject({ ok: true, result: { lines: [] } });

    const id = await shell(h);
    const sent = await c.request('sessions.send', { id, text: 'echo marked-output', enter: true });
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.result.mark).toBeGreaterThanOrEqual(0);
    await waitFor(() => h.registry.get(id)!.session.screenLines().includes('marked-output'), { what: 'the output' });
    const turn = await c.request('sessions.wait', { id, until: 'done', timeoutMs: 5_000, since: sent.result.mark! });
    if (!turn.ok) throw new Error(turn.error.message);
    expect(turn.result.lines.slice(0, 2)).toEqual(['$ echo marked-output', 'marked-output']);
  });
});

/** A session of `spawner` under SessionWaits (`opts` beside its registry), and every write typed into it. */
async function typedSession(opts: Omit<SessionWaitsOptions, 'registry' | 'describe'>, spawner = testShell(), cwd = repoRoot) {
  const registry = new SessionRegistry({ spawner });
  cleanups.push(() => registry.dispose());
  const waits = new SessionWaits({ registry, describe: (r) => new SessionFacts().info(r), ...opts });
  cleanups.push(() => waits.dispose());
  const spawned = await registry.spawn({ cwd });
  if (!spawned.ok) throw new Error(spawned.message);
  const s = spawned.record.session;
  const typed: string[] = [];
  const write = s.write.bind(s);
  s.write = (d: string) => {
    typed.push(d);
    return write(d);
  };
  return { registry, waits, s, typed };
}

describe('a first prompt', () => {
  it('is typed only once the program says it is ready, then spawn --wait returns after its turn', async () => {
    let ready = false;
    let asked = 0;
    const { registry, waits, s, typed } = await typedSession({ readyEvidence: () => (asked++, ready), limits: { quietWithChannelsMs: 60_000 } });
    const delivered = waits.deliverPrompt(s.id, 'echo first-prompt');
    const turn = waits.wait(s.id, 'turn', 20_000);
    await waitFor(() => s.screenLines().some((l) => l.startsWith('$')), { what: 'the shell prompt' });
    // Its screen is drawn and quiet, but its status channel has not said "ready": nothing is typed.
    const before = asked;
    await waitFor(() => asked >= before + 5, { what: 'readiness to be looked at again' });
    expect(typed).toEqual([]);
    ready = true;
    expect(await delivered).toBe(true);
    expect(typed).toEqual(['echo first-prompt', '\r']);
    await waitFor(() => s.screenLines().includes('first-prompt'), { what: 'the prompt to run' });
    registry.setState(s.id, 'working', 'test');
    registry.setState(s.id, 'idle', 'test');
    expect(await turn).toMatchObject({ outcome: 'settled', until: 'turn', session: { state: 'idle' } });
  });

  it('waits through a dialog the agent shows first (attention), typed once it is answered', async () => {
    const { registry, waits, s, typed } = await typedSession({ readyEvidence: () => true });
    // Codex's notice for a folder not trusted: the session needs the user before any prompt.
    registry.setState(s.id, 'attention', 'test: trust notice');
    const delivered = waits.deliverPrompt(s.id, 'echo after-dialog');
    await waitFor(() => s.screenLines().some((l) => l.startsWith('$')), { what: 'the shell prompt' });
    expect(typed).toEqual([]);
    registry.setState(s.id, 'idle', 'test: answered');
    // The dialog's attention did not end the wait for readiness: the prompt goes once it is answered.
    expect(await delivered).toBe(true);
    expect(typed).toEqual(['echo after-dialog', '\r']);
  });

  it('presses Return only once an agent that went to work after it looked ready is ready again', async () => {
    const { registry, waits, s, typed } = await typedSession({ readyEvidence: () => true });
    await waitFor(() => s.screenLines().some((l) => l.startsWith('$')), { what: 'the shell prompt' });
    // Like Codex once its folder notice is answered: the prompt is pasted, then it sets a spinner
    // title while it finishes starting, and drops a Return meanwhile.
    const write = s.write.bind(s);
    s.write = (d: string) => {
      if (d === 'echo after-start') registry.setState(s.id, 'working', 'test: starting');
      return write(d);
    };
    const delivered = waits.deliverPrompt(s.id, 'echo after-start');
    await waitFor(() => s.screenLines().some((l) => l.endsWith('echo after-start')), { what: 'the prompt echoed' });
    // Its echo settled, the Return waits for the agent to be ready again.
    await waitFor(() => waits.pending > 0, { what: 'the wait for readiness' });
    expect(typed).toEqual(['echo after-start']);
    registry.setState(s.id, 'idle', 'test: started');
    expect(await delivered).toBe(true);
    expect(typed).toEqual(['echo after-start', '\r']);
  });

  it('waits while an agent has drawn only a blank screen, however long it stays still', async () => {
    // Like OpenCode: it clears the screen, boots for a while drawing nothing, then draws its input line.
    const dir = mkdtempSync(join(tmpdir(), 'termio-blank-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const booted = join(dir, 'booted');
    const script = `printf '\\033[2J\\033[H'; while [ ! -e '${booted}' ]; do sleep 0.05; done; printf 'ask> '; read -r line; echo "got:$line"`;
    let asked = 0;
    const { waits, s, typed } = await typedSession(
      // An agent with a status channel that has not said "ready": its screen decides.
      { readyEvidence: () => (asked++, false), limits: { quietWithChannelsMs: 50 } },
      shellSpawner(['/bin/sh', '-c', script]),
      dir,
    );
    let drawn = false;
    s.onRender(() => (drawn = true));
    const delivered = waits.deliverPrompt(s.id, 'hello');
    await waitFor(() => drawn, { what: 'the screen cleared' });
    // Still and blank for many looks past quietWithChannelsMs: nothing is typed yet.
    const before = asked;
    await waitFor(() => asked >= before + 10, { what: 'readiness to be looked at again' });
    expect(s.screenLines().every((l) => l.trim() === '')).toBe(true);
    expect(typed).toEqual([]);
    writeFileSync(booted, '');
    expect(await delivered).toBe(true);
    await waitFor(() => s.screenLines().some((l) => l.includes('got:hello')), { what: 'the prompt typed into the drawn input line' });
  });

  it('a program with no status channel gets it once its output settles (spawn --prompt through the CLI)', async () => {
    host = await startTestHost();
    const h = host;
    const r = await termio(['sessions', 'spawn', '--prompt', 'echo from-the-prompt'], h.env);
    expect(r.status).toBe(0);
    const id = r.stdout.trim();
    await waitFor(() => h.registry.get(id)?.session.screenLines().includes('from-the-prompt'), { what: 'the prompt typed and run' });
  });
});

describe('a turn of an agent whose hooks report each prompt', () => {
  it('counts its work only from the hook: a title spinner while the agent starts is not the turn', async () => {
    const registry = new SessionRegistry({ spawner: testShell() });
    cleanups.push(() => registry.dispose());
    let hookWork = 0;
    let asked = 0;
    const waits = new SessionWaits({ registry, describe: (r) => new SessionFacts().info(r), promptHook: () => (asked++, true), hookWork: () => hookWork });
    cleanups.push(() => waits.dispose());
    const spawned = await registry.spawn({ cwd: repoRoot });
    if (!spawned.ok) throw new Error(spawned.message);
    const id = spawned.record.id;
    waits.noteInput(id);
    let settled = false;
    const turn = waits.wait(id, 'turn', 20_000).then((r) => ((settled = true), r));
    // Codex connecting to its app-server: spinner, then quiet, with the prompt still queued.
    registry.setState(id, 'working', 'titleStatus: ^[⠋]');
    registry.setState(id, 'done', 'titleStatus: no rule matches');
    const before = asked;
    await waitFor(() => asked >= before + 5, { what: 'the turn to be looked at again' });
    expect(settled).toBe(false);
    // The prompt hook reports, the turn runs and ends.
    hookWork = 1;
    registry.setState(id, 'working', 'hooks: UserPromptSubmit');
    registry.setState(id, 'done', 'hooks: Stop');
    expect(await turn).toMatchObject({ outcome: 'settled', until: 'turn', session: { state: 'done' } });
  });
});

describe('sessions started by a session', () => {
  it('record their parent (TERMIO_SESSION of the caller)', async () => {
    host = await startTestHost();
    const h = host;
    const parent = await shell(h);
    const inside = { ...h.env, TERMIO_SESSION: parent };
    const child = (await termio(['sessions', 'spawn'], inside)).stdout.trim();
    const ran = JSON.parse((await termio(['sessions', 'run', '--json', '--', 'true'], inside)).stdout);
    expect(h.registry.get(child)?.parentId).toBe(parent);
    expect(ran.session.parentId).toBe(parent);
    expect(h.registry.children(parent).map((r) => r.id)).toEqual([child, ran.id]);
    expect((await termio(['sessions', 'list'], h.env)).stdout).toContain(`↳ ${parent.slice(0, 8)}`);
    // A caller that is not an open session is no parent.
    const orphan = (await termio(['sessions', 'spawn'], { ...h.env, TERMIO_SESSION: 'gone' })).stdout.trim();
    expect(h.registry.get(orphan)?.parentId).toBeNull();
  });

  it('take the parent from the session secret, whatever TERMIO_SESSION claims', async () => {
    let owner = '';
    host = await startTestHost({ server: { callerOf: (secret) => (secret === 'the-secret' && owner ? { sessionId: owner, bypass: false } : null) } });
    const h = host;
    owner = await shell(h);
    const other = await shell(h);
    const env = { ...h.env, TERMIO_SESSION: other, TERMIO_SESSION_SECRET: 'the-secret' };
    const child = (await termio(['sessions', 'spawn'], env)).stdout.trim();
    expect(h.registry.get(child)?.parentId).toBe(owner);
  });
});

describe('stalled sessions', () => {
  it('show in watch (a stall line each way), list and the session info', async () => {
    host = await startTestHost();
    const h = host;
    const id = await shell(h);
    const watching = background(['sessions', 'watch', '--json'], h.env);
    const lines = () => watching.out();
    await waitFor(() => lines().includes('"kind":"snapshot"'), { what: 'the snapshot' });
    const since = Date.now() - 130_000;
    h.registry.setStalled(id, since);
    await waitFor(() => lines().includes('"kind":"stall"'), { what: 'the stall line' });
    const stall = lines()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.kind === 'stall');
    expect(stall).toMatchObject({ schemaVersion: 1, ok: true, kind: 'stall', session: { id, stalledSince: new Date(since).toISOString() } });
    expect((await termio(['sessions', 'list'], h.env)).stdout).toMatch(/idle \(stalled\)/);
    h.registry.setStalled(id, null);
    await waitFor(() => lines().split('"kind":"stall"').length === 3, { what: 'the stall to clear' });
    expect(JSON.parse((await termio(['sessions', 'list', '--json'], h.env)).stdout).sessions[0].stalledSince).toBeNull();
  });
});

describe('termio notify', () => {
  it('asks the app for a notification that focuses the calling session', async () => {
    const shown: Array<{ sessionId: string | null; title?: string; text: string }> = [];
    host = await startTestHost({ server: { onNotify: (n) => void shown.push(n) } });
    const h = host;
    const id = await shell(h);
    const r = await termio(['notify', '--title', 'Build', 'tests passed', '--json'], { ...h.env, TERMIO_SESSION: id });
    expect(r).toMatchObject({ status: 0, stdout: '{"schemaVersion":1,"ok":true,"shown":true}\n' });
    expect(shown).toEqual([{ sessionId: id, title: 'Build', text: 'tests passed' }]);
    expect((await termio(['notify'], h.env)).status).toBe(2);
  });
});

describe('the CLI', () => {
  it('loads no zod: every termio command pays for what the session commands load', () => {
    const dist = join(repoRoot, 'dist', 'app');
    const probe = `for (const m of ['cli/main', 'cli/sessions', 'cli/notify', 'cli/output', 'client/controlClient']) require(${JSON.stringify(dist)} + '/' + m + '.js');
      console.log(Object.keys(require.cache).filter((k) => k.includes('/node_modules/zod/')).length)`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('0');
  });
});
