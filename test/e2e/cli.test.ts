// The termio CLI against the real app under Xvfb: only the CLI drives it. Spawn a shell, type into
// it, read its screen, watch a status change from a (fake) agent with hooks, focus and close;
// two sessions in two folders side by side; and a shell session driving an agent and a command
// with spawn --prompt --wait and run --wait, and a wait that times out.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, cliJson, Display, e2eSkipReason, installFakeAgents, isAlive, listSessions, repoRoot, useDesktop } from './harness';

interface Info {
  id: string;
  agentId: string | null;
  cwd: string;
  state: string;
  pid: number;
  exited: unknown;
}

describe.skipIf(e2eSkipReason)('termio CLI against the running app', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'cli',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  async function started(): Promise<AppUnderTest> {
    const a = await AppUnderTest.launch(display);
    await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return a;
  }

  it('spawns a shell, types into it, reads it back, focuses and closes it', async () => {
    app = await started();
    const folder = join(app.home, 'project');
    mkdirSync(folder);
    const spawned = await app.cli(['sessions', 'spawn', '--cwd', folder]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = spawned.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const sent = await app.cli(['sessions', 'send', id.slice(0, 8), 'echo hel""lo', '--enter']);
    expect(sent.code, sent.stderr).toBe(0);
    // The typed command line reads `echo hel""lo`; only the shell's output reads `hello`.
    await waitFor(async () => (await app!.cli(['sessions', 'read', id, '--lines', '5'])).stdout.split('\n').includes('hello'), { what: 'hello on the screen' });

    const focus = await app.cli(['sessions', 'focus', id.slice(0, 6)]);
    expect(focus.code).toBe(0);
    await app.waitForLog(new RegExp(`session focused \\{"id":"${id}"`));

    const [info] = await listSessions<Info>(app);
    expect(info).toMatchObject({ id, cwd: folder });
    const close = await app.cli(['sessions', 'close', id]);
    expect(close.code).toBe(0);
    expect(await listSessions<Info>(app)).toEqual([]);
    await waitFor(() => !isAlive(info!.pid), { what: 'the shell to end' });
    expect((await app.cli(['sessions', 'read', id])).code).toBe(1);
  });

  it('keeps two sessions in two folders apart', async () => {
    app = await started();
    const [a, b] = ['alpha', 'beta'].map((n) => join(app!.home, n));
    mkdirSync(a!);
    mkdirSync(b!);
    const idA = (await app.cli(['sessions', 'spawn', '--cwd', a!])).stdout.trim();
    const idB = (await app.cli(['sessions', 'spawn', '--cwd', b!])).stdout.trim();
    for (const id of [idA, idB]) await app.cli(['sessions', 'send', id, 'pwd', '--enter']);
    await waitFor(async () => (await app!.cli(['sessions', 'read', idA])).stdout.split('\n').includes(a!), { what: 'pwd in A' });
    await waitFor(async () => (await app!.cli(['sessions', 'read', idB])).stdout.split('\n').includes(b!), { what: 'pwd in B' });
    expect((await app.cli(['sessions', 'read', idA])).stdout.split('\n')).not.toContain(b);
    const list = await listSessions<Info>(app);
    expect(list.map((s) => [s.id, s.cwd])).toEqual([
      [idA, a],
      [idB, b],
    ]);
  });

  it('streams status changes of an agent session to sessions watch', async () => {
    const home = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'termio-e2e-'));
    installFakeAgents(home, ['claude']);
    // No titles from the fake: the idle title would race the Stop hook, and this test is about the hooks.
    appendFileSync(join(home, '.bash_profile'), 'export FAKE_AGENT_NO_TITLES=1\n');
    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);

    const watch = spawn(join(repoRoot, 'bin', 'termio'), ['sessions', 'watch', '--json'], { env: AppUnderTest.envFor(display, app.home, app.termioHome) });
    const lines: Array<{ kind: string; session: Info; previous?: string }> = [];
    let buf = '';
    watch.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    try {
      const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', app.home]);
      expect(spawned.code, spawned.stderr).toBe(0);
      const id = spawned.stdout.trim();
      // The watcher may connect before the spawn (an 'added' line) or after it (a 'snapshot' line).
      await waitFor(() => lines.some((l) => (l.kind === 'added' || l.kind === 'snapshot') && l.session.id === id), { what: 'the session in the watch' });
      await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('fake claude ready'), { what: 'the fake agent to start' });
      await app.cli(['sessions', 'send', id, 'refactor the parser', '--enter']);
      await waitFor(() => lines.some((l) => l.kind === 'state' && l.session.id === id && l.session.state === 'working'), { what: 'a working line' });
      await waitFor(() => lines.some((l) => l.kind === 'state' && l.session.id === id && ['done', 'idle'].includes(l.session.state)), {
        what: 'the turn to end',
      });
      // And the session can say why: the Stop hook (the only channel this fake speaks).
      const why = await cliJson<{ state: string; channel: string; event?: string; rule?: string }>(app, ['sessions', 'why', id.slice(0, 8)]);
      expect(why).toMatchObject({ channel: 'hooks', event: 'Stop' });
      expect((await app.cli(['sessions', 'why', id])).stdout).toMatch(/^(done|idle) since .* — hooks Stop at /);
    } finally {
      watch.kill('SIGINT');
    }
  });

  describe('agents driving agents', () => {
    const termioBin = join(repoRoot, 'bin', 'termio');

    /** Types a command into a shell session and waits for the file it writes its exit code to. */
    async function inShell(a: AppUnderTest, shellId: string, command: string, name: string): Promise<{ code: number; out: string }> {
      const out = join(a.home, `${name}.out`);
      const done = join(a.home, `${name}.done`);
      const sent = await a.cli(['sessions', 'send', shellId, `${command} > ${out} 2>&1; echo $? > ${done}`, '--enter']);
      expect(sent.code, sent.stderr).toBe(0);
      try {
        const { code } = await waitFor(
          () => (existsSync(done) && readFileSync(done, 'utf8').endsWith('\n') ? { code: Number(readFileSync(done, 'utf8')) } : null),
          {
            timeout: 40_000,
            what: `${name} in the shell session`,
          },
        );
        return { code, out: readFileSync(out, 'utf8') };
      } catch (err) {
        const screen = (await a.cli(['sessions', 'read', shellId])).stdout;
        throw new Error(`${(err as Error).message}; the shell shows:\n${screen}\n${existsSync(out) ? readFileSync(out, 'utf8') : ''}`);
      }
    }

    it('a shell session spawns a fake agent with a prompt, waits for its answer, and runs a command to its exit code', async () => {
      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
      installFakeAgents(home, ['claude']);
      app = await AppUnderTest.launch(display, { home });
      const win = await app.waitForWindow();
      await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
      expect((await app.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
      const shellId = (await app.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();

      const spawned = await inShell(app, shellId, `${termioBin} sessions spawn --agent claude --prompt "x" --wait --timeout 30 --json`, 'spawn');
      expect(spawned.code, spawned.out).toBe(0);
      const reply = JSON.parse(spawned.out);
      expect(reply).toMatchObject({
        schemaVersion: 1,
        ok: true,
        wait: { outcome: 'settled', until: 'turn', session: { agentId: 'claude', parentId: shellId } },
      });
      // The fake's answer to its first prompt (it reads the prompt, runs its turn, answers).
      expect(reply.wait.lines).toEqual(expect.arrayContaining(['fake claude ready', expect.stringMatching(/Done\.$/)]));
      expect(reply.wait.session).toMatchObject({ state: expect.stringMatching(/^(done|idle)$/), title: 'x' });
      app.screenshot('cli-spawn-wait');

      const ran = await inShell(app, shellId, `${termioBin} sessions run --wait --json -- sh -c 'exit 7'`, 'run');
      expect(ran.code, ran.out).toBe(0);
      expect(JSON.parse(ran.out)).toMatchObject({ ok: true, wait: { outcome: 'settled', session: { exited: { exitCode: 7 }, parentId: shellId } } });
      const list = await listSessions<Info & { parentId: string | null }>(app);
      expect(list.filter((s) => s.parentId === shellId)).toHaveLength(2);
      // A command that exits non-zero needs you, with its exit code as the reason.
      expect((await app.cli(['sessions', 'why', JSON.parse(ran.out).id])).stdout).toMatch(/exited with code 7/);
      app.screenshot('cli-children');

      // Closing the shell from the keyboard asks whether the sessions it started go too; Enter says yes.
      expect((await app.cli(['sessions', 'focus', shellId])).code).toBe(0);
      display.xdotool('windowfocus', '--sync', win);
      display.xdotool('key', process.platform === 'darwin' ? 'super+w' : 'ctrl+shift+w');
      await app.waitForLog(new RegExp(`close asks about started sessions \\{"id":"${shellId}"`));
      app.screenshot('cli-close-asks');
      expect(await listSessions<Info>(app)).toHaveLength(3);
      display.xdotool('key', 'Return');
      await waitFor(async () => (await listSessions<Info>(app!)).length === 0, { what: 'the shell and the two sessions it started to close' });
    }, 120_000);

    it('wait --timeout 1 on a working session exits 3', async () => {
      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
      installFakeAgents(home, ['claude']);
      app = await AppUnderTest.launch(display, { home });
      await app.waitForWindow();
      await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
      expect((await app.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
      const id = (await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', home, '--prompt', 'a slow build'])).stdout.trim();
      await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.id === id)?.state === 'working', { what: 'the agent to work' });
      const waited = await app.cli(['sessions', 'wait', id, '--timeout', '1', '--json']);
      expect(waited.code, waited.stderr).toBe(3);
      expect(JSON.parse(waited.stdout)).toMatchObject({ schemaVersion: 1, ok: true, outcome: 'timeout', session: { state: 'working' } });
    });
  });
});
