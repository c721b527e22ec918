// Sessions outlive the window: the real app under Xvfb is a client of the session host, so
// quitting it (or killing it mid-flood) leaves every session's process running with the same pid,
// and starting it again shows each tab's screen and scrollback as they were, with typing working.
// A host that is killed is noticed at the next start: its sessions come back through exact resume
// and are shown as recovered. "Quit and end all sessions" leaves nothing behind.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, descendants, Display, e2eSkipReason, homeWithRealClaude, readPixels, repoRoot, type Rgb, useDesktop } from './harness';

/** The host runs sessions on its own ptys, as on a machine where the holder could not be built. */
const NO_HOLDERS = { TERMIO_HOLDERS: '0' };

interface Info {
  id: string;
  pid: number;
  agentId: string | null;
  cwd: string;
}

/** The terminal part of the window: right of the sidebar, above the last rows (where the cursor blinks). */
function terminalPixels(png: string, geom: { width: number; height: number }): Rgb[] {
  return readPixels(png, 270, 10, geom.width - 290, geom.height - 120);
}

function differing(a: Rgb[], b: Rgb[]): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i]!.r !== b[i]!.r || a[i]!.g !== b[i]!.g || a[i]!.b !== b[i]!.b) n++;
  return n;
}

/**
 * How far `after` shows the content of `before` moved down, in pixel rows: the shift at which the
 * most of before's non-blank rows reappear unchanged in after, with the fraction that did.
 */
function downwardShift(before: Rgb[], after: Rgb[], width: number): { shift: number; matched: number } {
  const rowsOf = (px: Rgb[]) => {
    const keys: string[] = [];
    // The left four fifths of each row: a scrollbar shown while scrolled back may cover the right edge.
    const used = Math.floor(width * 0.8);
    for (let y = 0; y * width < px.length; y++)
      keys.push(
        px
          .slice(y * width, y * width + used)
          .map((p) => (p.r << 16) | (p.g << 8) | p.b)
          .join(','),
      );
    return keys;
  };
  const [b, a] = [rowsOf(before), rowsOf(after)];
  const blank = b[0]!.split(',').every((v, _i, all) => v === all[0]) ? b[0] : undefined;
  let best = { shift: 0, matched: 0 };
  for (let shift = 0; shift < b.length / 2; shift++) {
    let rows = 0;
    let same = 0;
    for (let y = 0; y + shift < a.length; y++) {
      if (b[y] === blank) continue;
      rows++;
      if (a[y + shift] === b[y]) same++;
    }
    if (rows > 0 && same / rows > best.matched) best = { shift, matched: same / rows };
  }
  return best;
}

async function list(app: AppUnderTest): Promise<Info[]> {
  const r = await app.cli(['sessions', 'list', '--json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as { sessions: Info[] }).sessions : [];
}

async function read(app: AppUnderTest, id: string): Promise<string> {
  return (await app.cli(['sessions', 'read', id])).stdout;
}

function hostPid(app: AppUnderTest): number {
  const pids = [...app.log().matchAll(/host listening .*"pid":(\d+)/g)].map((m) => Number(m[1]));
  return pids.at(-1)!;
}

/** The last number a counter printed on the screen. */
function lastCount(screen: string): number {
  return Math.max(...[...screen.matchAll(/^tick (\d+)$/gm)].map((m) => Number(m[1])), -1);
}

describe.skipIf(e2eSkipReason)('sessions that outlive the window', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'session-host',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  async function start(home?: string, settings?: Record<string, unknown>, env?: Record<string, string>): Promise<AppUnderTest> {
    const a = await AppUnderTest.launch(display, { ...(home ? { home } : {}), ...(settings ? { settings } : {}), ...(env ? { env } : {}) });
    app = a;
    await a.waitForWindow();
    // This app's own start (the log holds earlier runs' lines too).
    await waitFor(() => [...a.log().matchAll(/app started \{"pid":(\d+)[\s\S]*?sessions restored/g)].some((m) => Number(m[1]) === a.pid), {
      timeout: 20_000,
      what: 'the app to attach and restore',
    });
    return a;
  }

  it('keeps a counter running through a quit, and shows the same screen and scrollback after', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    let first = await start(home);
    const counter = (await first.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await first.cli(['sessions', 'send', counter, 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.2; done', '--enter']);
    // A static session with scrollback: its screen must come back pixel for pixel.
    const still = (await first.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await first.cli(['sessions', 'send', still, 'seq 1 400; echo static-end', '--enter']);
    await waitFor(async () => (await read(first, still)).includes('\nstatic-end'), { what: 'the static output' });
    await waitFor(async () => lastCount(await read(first, counter)) >= 3, { what: 'the counter to count' });
    const before = await list(first);
    const pids = new Map(before.map((s) => [s.id, s.pid]));
    expect(pids.size).toBe(2);

    // The static session on screen, then scrolled back a page: both pictures, kept to compare.
    const win = await first.waitForWindow();
    const geom = first.windowGeometry(win);
    expect((await first.cli(['sessions', 'focus', still])).code).toBe(0);
    const shotBefore = await settledShot(first, 'host-quit-before');
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', 'shift+Prior');
    const scrolledBefore = await changedShot(first, 'host-quit-before-scrolled', shotBefore, geom);
    display.xdotool('key', 'shift+Next');
    const countBefore = lastCount(await read(first, counter));

    // Quit (detach): the host keeps every process, with the same pid.
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    for (const [, pid] of pids) expect(isAlive(pid)).toBe(true);

    first = await start(home);
    const after = await list(first);
    expect(new Map(after.map((s) => [s.id, s.pid]))).toEqual(pids);
    // The counter kept counting while no window was attached.
    await waitFor(async () => lastCount(await read(first, counter)) > countBefore + 2, { what: 'the counter to go on' });
    expect((await first.cli(['sessions', 'focus', still])).code).toBe(0);
    const win2 = await first.waitForWindow();
    const shotAfter = await settledShot(first, 'host-quit-after');
    expect(differing(terminalPixels(shotBefore, geom), terminalPixels(shotAfter, geom))).toBe(0);
    display.xdotool('windowfocus', '--sync', win2);
    display.xdotool('key', 'shift+Prior');
    const scrolledAfter = await changedShot(first, 'host-quit-after-scrolled', shotAfter, geom);
    expect(differing(terminalPixels(scrolledBefore, geom), terminalPixels(scrolledAfter, geom))).toBe(0);

    // Typing in the window reaches the session through the host (and brings the view back down).
    display.xdotool('type', '--delay', '20', 'echo typed-after-reattach');
    display.xdotool('key', 'Return');
    await waitFor(async () => /^typed-after-reattach$/m.test(await read(first, still)), { what: 'the typed command to run' });
  }, 180_000);

  it('keeps the real Claude Code running through a quit, with the same process and its prompt', async (ctx) => {
    const set = await homeWithRealClaude(ctx);
    if (!set) return;
    const { home, project } = set;
    let first = await start(home);
    const agent = (await first.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project])).stdout.trim();
    await waitFor(async () => (await read(first, agent)).includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    const pid = (await list(first)).find((s) => s.id === agent)?.pid;
    expect(pid).toBeGreaterThan(0);
    expect((await first.stop()).code).toBe(0);
    expect(isAlive(pid!)).toBe(true);

    first = await start(home);
    expect((await list(first)).find((s) => s.id === agent)).toMatchObject({ pid, agentId: 'claude' });
    expect(await read(first, agent)).toContain('for shortcuts');
  }, 120_000);

  it('selects with the mouse, copies and pastes through the host, and scrolls with the wheel', async () => {
    const a = await start();
    const id = (await a.cli(['sessions', 'spawn', '--cwd', a.home])).stdout.trim();
    await a.cli(['sessions', 'focus', id]);
    await a.cli(['sessions', 'send', id, 'clear; echo selectme-word-42', '--enter']);
    await waitFor(async () => (await read(a, id)).split('\n')[0] === 'selectme-word-42', { what: 'the word alone on the first row' });
    const win = await a.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    // A double-click on the first row's word selects it (the host keeps the selection); Ctrl+Shift+C
    // asks the host for its text and puts it on the clipboard.
    display.xdotool('mousemove', '--window', win, '300', '16', 'click', '--repeat', '2', '--delay', '60', '1');
    display.xdotool('key', 'ctrl+shift+c');
    display.xdotool('type', '--delay', '20', 'echo pasted:');
    await waitFor(async () => (await read(a, id)).includes('echo pasted:'), { what: 'the typed prefix' });
    display.xdotool('key', 'ctrl+shift+v');
    display.xdotool('key', 'Return');
    await waitFor(async () => /^pasted:selectme-word-42$/m.test(await read(a, id)), { what: 'the pasted word echoed' });

    // The wheel scrolls the session's viewport back through scrollback.
    await a.cli(['sessions', 'send', id, 'seq 1 300', '--enter']);
    await waitFor(async () => /^300$/m.test(await read(a, id)), { what: 'the numbers' });
    const bottom = await settledShot(a, 'wheel-bottom');
    const geom = a.windowGeometry(win);
    display.xdotool('mousemove', '--window', win, '500', '300', 'click', '4', 'click', '4', 'click', '4');
    const scrolled = await changedShot(a, 'wheel-scrolled', bottom, geom);
    // Scrolled back, not merely repainted: the rows of the bottom view reappear unchanged, further down.
    const moved = downwardShift(terminalPixels(bottom, geom), terminalPixels(scrolled, geom), geom.width - 290);
    expect(moved.shift).toBeGreaterThan(0);
    expect(moved.matched).toBeGreaterThan(0.95);
  }, 60_000);

  it('shows a session that ended while no window was attached with its exit status, and resumes it', async () => {
    let a = await start();
    const home = a.home;
    const id = (await a.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await a.cli(['sessions', 'focus', id]);
    await a.stop();
    // With no window attached, the program ends.
    const ended = spawnSync(join(repoRoot, 'bin', 'termio'), ['sessions', 'send', id, 'exit 3', '--enter'], {
      env: AppUnderTest.envFor(display, home, join(home, '.termio')),
      encoding: 'utf8',
    });
    expect(ended.status, ended.stderr).toBe(0);
    a = await start(home);
    await a.waitForLog(new RegExp(`session shown as ended \\{"id":"${id}","exitCode":3\\}`));
    const win = await a.waitForWindow();
    const geom = a.windowGeometry(win);
    a.screenshot('host-ended-while-detached');
    const before = (await list(a)).find((s) => s.id === id)!;
    // The exit bar's Resume (the first of its three buttons, at the window's bottom right).
    display.xdotool('mousemove', '--window', win, String(geom.width - 200), String(geom.height - 22), 'click', '1');
    const after = await waitFor(async () => (await list(a)).find((s) => s.id === id && s.pid !== before.pid), { what: 'the session resumed in its tab' });
    expect(after.cwd).toBe(home);
  }, 60_000);

  it('keeps sessions through a SIGKILL of the app in the middle of a flood, and Ctrl-C from the new window stops it', async () => {
    let first = await start();
    const home = first.home;
    const flood = (await first.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await first.cli(['sessions', 'send', flood, 'yes flood-line', '--enter']);
    await waitFor(async () => (await read(first, flood)).includes('flood-line\nflood-line'), { what: 'the flood' });
    const [info] = await list(first);
    // The window paints frames; the pty lives in the host: only the host has node-pty's addon mapped.
    expect(readFileSync(`/proc/${first.pid}/maps`, 'utf8')).not.toContain('pty.node');
    expect(readFileSync(`/proc/${hostPid(first)}/maps`, 'utf8')).toContain('pty.node');
    first.proc.kill('SIGKILL');
    await waitFor(() => first.exit, { what: 'the app to die' });
    expect(isAlive(info!.pid)).toBe(true);
    // Still flooding with no window attached.
    const yesPid = await waitFor(() => descendants(info!.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('yes')), {
      what: 'yes still running',
    });

    first = await start(home);
    expect((await list(first)).map((s) => s.pid)).toEqual([info!.pid]);
    const win = await first.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', 'ctrl+c');
    await waitFor(() => !isAlive(yesPid), { what: 'Ctrl-C from the new window to stop yes' });
    display.xdotool('type', '--delay', '20', 'echo after-flood');
    display.xdotool('key', 'Return');
    await waitFor(async () => /^after-flood$/m.test(await read(first, flood)), { what: 'typing after the flood' });
  }, 120_000);

  // Without session holders (no C compiler at set-up): holders keep agents alive instead (holders.test.ts).
  it('without session holders, resumes the sessions of a killed host exactly, with the app running or started again, and says so', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const agents = join(home, '.termio', 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, 'fake-pinned.json'),
      JSON.stringify({
        id: 'fake-pinned',
        name: 'Fake Pinned',
        command: join(repoRoot, 'test', 'fakes', 'fakePinnedAgent.mjs'),
        resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.fakepinned/sessions', storeMatch: 'file:{id}.jsonl' },
      }),
    );
    const work = join(home, 'work');
    mkdirSync(work);
    let first = await start(home, undefined, NO_HOLDERS);
    const shell = (await first.cli(['sessions', 'spawn', '--cwd', work])).stdout.trim();
    const agent = (await first.cli(['sessions', 'spawn', '--agent', 'fake-pinned', '--cwd', work])).stdout.trim();
    await first.cli(['sessions', 'send', shell, 'echo before-the-crash', '--enter']);
    await waitFor(async () => /^before-the-crash$/m.test(await read(first, shell)), { what: 'the shell' });
    // The agent writes its conversation on its first message, as Claude Code does.
    await first.cli(['sessions', 'send', agent, 'hello', '--enter']);
    const conversation = await waitFor(
      () => {
        const state = JSON.parse(readFileSync(join(home, '.termio', 'state', 'sessions.json'), 'utf8')) as {
          sessions: Array<{ id: string; conversationId: string | null }>;
        };
        return state.sessions.find((s) => s.id === agent)?.conversationId;
      },
      { what: "the agent's conversation id saved" },
    );
    const host = hostPid(first);
    const old = new Map((await list(first)).map((s) => [s.id, s.pid]));
    const sessionsOfHost = descendants(host);
    const agentArgv = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const checkResumed = async (a: AppUnderTest, before: Map<string, number>) => {
      const again = await waitFor(
        async () => {
          const l = await list(a);
          return l.length === 2 && l.every((s) => s.pid !== before.get(s.id)) ? l : null;
        },
        { timeout: 20_000, what: 'both sessions back, relaunched' },
      );
      expect(again.find((s) => s.id === shell)!.cwd).toBe(work);
      // Exactly resumed: the agent's own command line names the same conversation.
      expect(agentArgv(again.find((s) => s.id === agent)!.pid)).toEqual(expect.arrayContaining(['--resume', conversation]));
      return new Map(again.map((s) => [s.id, s.pid]));
    };

    // The host dies under a running app: the app starts a new one, which resumes every session.
    process.kill(host, 'SIGKILL');
    await first.waitForLog(/session host lost/);
    const relaunched = await checkResumed(first, old);
    await first.waitForLog(/sessions restored .*"recovered":2,"after":"host lost"/);
    expect(sessionsOfHost.filter(isAlive)).toEqual([]);
    const second = hostPid(first);
    expect(second).not.toBe(host);
    first.screenshot('host-recovered-live');

    // The host dies with no app attached: the app, started again, shows them recovered.
    await first.stop();
    process.kill(second, 'SIGKILL');
    await waitFor(() => [...relaunched.values()].every((p) => !isAlive(p)), { what: 'the sessions to go with their host' });
    first = await start(home, undefined, NO_HOLDERS);
    await first.waitForLog(/sessions restored .*"recovered":2,"msSinceStart"/);
    await checkResumed(first, relaunched);
    first.screenshot('host-recovered');
  }, 90_000);

  it('"quit and end all sessions" (chosen in Settings → Sessions) leaves no process behind', async () => {
    const first = await start();
    const home = first.home;
    // Settings → Sessions → "When Termio quits": End all sessions, from the keyboard.
    const win = await first.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', 'ctrl+comma');
    const settingsWin = await first.waitForWindow('Termio Settings');
    display.xdotool('windowfocus', '--sync', settingsWin);
    for (let i = 0; i < 3; i++) display.xdotool('key', 'ctrl+Tab');
    // The combo box is the page's first control, right of its label: open it, take the next choice.
    display.xdotool('mousemove', '--window', settingsWin, '225', '56', 'click', '1');
    display.xdotool('key', 'Down', 'Return');
    const settingsFile = join(home, '.termio', 'config', 'settings.json');
    await waitFor(() => (JSON.parse(readFileSync(settingsFile, 'utf8')) as { sessions?: { onQuit?: string } }).sessions?.onQuit === 'end', {
      what: 'onQuit saved as end',
    });
    first.screenshot('settings-sessions');
    for (const cmd of ['sleep 600', 'yes > /dev/null', '']) {
      const id = (await first.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
      if (cmd) await first.cli(['sessions', 'send', id, cmd, '--enter']);
    }
    const host = hostPid(first);
    const all = await waitFor(
      () => {
        const d = descendants(host);
        return d.some((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('sleep')) &&
          d.some((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('yes'))
          ? d
          : null;
      },
      { what: 'every session and its job under the host' },
    );
    expect((await first.stop()).code).toBe(0);
    await waitFor(() => [host, ...all].every((p) => !isAlive(p)), { timeout: 5_000, what: 'the host and every descendant to end' });
    expect([host, ...all].filter(isAlive)).toEqual([]);
  }, 60_000);

  it('without session holders, finds a host of another version, says so, and restarts it: every session ends and comes back resumed', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const termioHome = join(home, '.termio');
    // An older Termio installed elsewhere (its own package.json and build; the same packages).
    const older = join(home, 'older-termio');
    mkdirSync(older);
    cpSync(join(repoRoot, 'dist'), join(older, 'dist'), { recursive: true });
    for (const link of ['node_modules', 'agents', 'assets', 'native', 'bin']) symlinkSync(join(repoRoot, link), join(older, link));
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(older, 'package.json'), JSON.stringify({ ...pkg, version: '0.0.9' }));
    mkdirSync(join(termioHome, 'config'), { recursive: true });
    writeFileSync(join(termioHome, 'config', 'settings.json'), '{ "welcomeShown": true }\n');
    const env = AppUnderTest.envFor(display, home, termioHome, NO_HOLDERS);
    const oldHost = spawn(process.execPath, [join(older, 'dist', 'app', 'host', 'hostMain.js')], { env, detached: true, stdio: 'ignore' });
    oldHost.unref();
    const hostLog = join(termioHome, 'logs', 'host.log');
    await waitFor(() => existsSync(hostLog) && readFileSync(hostLog, 'utf8').includes('"version":"0.0.9"'), { what: 'the older host to listen' });
    // A session in the older host, started by the command line as a script would.
    const work = join(home, 'work');
    mkdirSync(work);
    const cli = (args: string[]) => spawnSync(join(repoRoot, 'bin', 'termio'), args, { env, encoding: 'utf8' });
    const spawned = cli(['host', 'spawn', '--cwd', work]);
    expect(spawned.status, spawned.stderr).toBe(0);
    const before = JSON.parse(readFileSync(join(termioHome, 'state', 'sessions.json'), 'utf8')) as { sessions: Array<{ id: string }> };
    expect(before.sessions).toHaveLength(1);
    const sessionId = before.sessions[0]!.id;

    const a = await AppUnderTest.launch(display, { home, env: NO_HOLDERS });
    app = a;
    // The question, before any window: Restart Host is the default button.
    const dialog = await a.waitForWindow('Termio');
    a.screenshot('host-version-skew');
    display.xdotool('windowfocus', '--sync', dialog);
    display.xdotool('key', 'Return');
    await a.waitForLog(/session host restarted for this version/);
    await waitFor(() => !isAlive(oldHost.pid!), { what: 'the older host to stop' });
    await a.waitForLog(/sessions restored .*"sessions":1/, 20_000);
    const status = cli(['host', 'status']);
    expect(status.stdout).toContain(`termio-host ${pkg.version} `);
    const again = await list(a);
    expect(again.map((s) => [s.id, s.cwd])).toEqual([[sessionId, work]]);
  }, 90_000);

  /** A screenshot once two in a row agree (the frame has settled). */
  async function settledShot(a: AppUnderTest, name: string): Promise<string> {
    let last: Rgb[] | null = null;
    const win = await a.waitForWindow();
    const geom = a.windowGeometry(win);
    return waitFor(
      () => {
        const png = a.screenshot(name);
        const px = terminalPixels(png, geom);
        const same = last !== null && differing(last, px) === 0;
        last = px;
        return same ? png : null;
      },
      { interval: 150, what: `a settled screen (${name})` },
    );
  }

  /** A settled screenshot that differs from `from` (the view scrolled). */
  async function changedShot(a: AppUnderTest, name: string, from: string, geom: { width: number; height: number }): Promise<string> {
    const base = terminalPixels(from, geom);
    await waitFor(() => differing(terminalPixels(a.screenshot(name), geom), base) > 0, { what: `the view to change (${name})` });
    return settledShot(a, name);
  }
});
