// A machine whose host describes its sessions wrongly — fields of the wrong type, a giant title,
// more sessions than any host runs — seen through the real termio-host and the real termio
// command. The machine is a fake `ssh` on the host's PATH that runs test/fakes/fakeMachine.mjs.
// What is malformed or past the caps is dropped with a log line; the rest is listed; every verb
// still works; removing the machine forgets all of it. A session under a local session's id is
// dropped too: every verb for that id goes to the local one, so it could only mislead.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REMOTE_SESSION_CHARS, MAX_SESSIONS_PER_MACHINE } from '../../../src/app/host/machines/machineLink';
import type { SessionInfo } from '../../../src/protocol/sessionInfo';
import { repoRoot, startHostProcess } from '../../helpers/companionHost';
import { termio } from '../../helpers/controlHost';
import { endProcessesWithHome } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

let host: Awaited<ReturnType<typeof startHostProcess>> | undefined;
/** Folders a test made outside its host's home (a stand-in ssh), removed after it. */
const scratch: string[] = [];
afterEach(async () => {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
  const home = host?.home;
  await host?.stop();
  if (home) await endProcessesWithHome(home);
  host = undefined;
});

const now = new Date().toISOString();
function session(id: string, over: Record<string, unknown> = {}): SessionInfo & Record<string, unknown> {
  return {
    id,
    agentId: 'claude',
    cwd: '/srv/repo',
    title: `remote ${id}`,
    state: 'idle',
    stateWhy: 'start',
    stateSince: now,
    createdAt: now,
    pid: 4242,
    argv: ['claude'],
    cols: 80,
    rows: 24,
    exited: null,
    parentId: null,
    stalledSince: null,
    bypass: false,
    windowId: null,
    views: 0,
    tool: null,
    progress: null,
    status: null,
    recovered: false,
    question: null,
    ...over,
  };
}

/** A host whose ssh runs fakeMachine.mjs with `script` (written now; read by each connection), and
 *  with the machine `hostile` saved when `saved`; the host's environment. */
async function hostWithMachine(script: { snapshot: unknown[]; events?: unknown[] }, saved: boolean): Promise<NodeJS.ProcessEnv> {
  const dir = join(process.env.TMPDIR ?? '/tmp', `fake-machine-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify(script));
  writeFileSync(join(dir, 'ssh'), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'test', 'fakes', 'fakeMachine.mjs')}"\n`);
  chmodSync(join(dir, 'ssh'), 0o755);
  host = await startHostProcess({
    enabled: false,
    config: saved ? { 'machines.json': JSON.stringify({ machines: { hostile: { target: 'me@hostile.invalid' } } }) } : {},
    env: { PATH: `${dir}:${process.env.PATH}`, FAKE_MACHINE_SESSIONS: join(dir, 'sessions.json') },
  });
  return host.env;
}

const droppedFor = (env: NodeJS.ProcessEnv): string[] =>
  readFileSync(join(env.TERMIO_HOME!, 'logs', 'host.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('machine session dropped'))
    .map((l) => /"reason":"([^"]+)"/.exec(l)?.[1] ?? l);

describe('a machine that describes its sessions wrongly', () => {
  it('has its malformed, oversized and surplus sessions dropped and logged, and the rest listed', async () => {
    const flood = Array.from({ length: MAX_SESSIONS_PER_MACHINE + 200 }, (_, i) => session(`flood-${i}`));
    const script = {
      snapshot: [
        session('good-1'),
        session('good-2'),
        session('42', { id: 42 }),
        session('null-id', { id: null, title: 7 }),
        session('typed', { title: { x: 1 }, cwd: 5, argv: 'x' }),
        { id: 'bare' },
        session('huge', { title: 'x'.repeat(MAX_REMOTE_SESSION_CHARS) }),
      ],
      events: flood,
    };
    const env = await hostWithMachine(script, true);

    const remote = async () => {
      const r = await termio(['sessions', 'list', '--json'], env);
      expect(r, r.stderr).toMatchObject({ status: 0 });
      return (JSON.parse(r.stdout) as { sessions: SessionInfo[] }).sessions.filter((s) => s.machine === 'hostile');
    };
    // Every well-formed session up to the cap; the first flood sessions fill it.
    const listed = await waitFor(
      async () => {
        const l = await remote();
        return l.length === MAX_SESSIONS_PER_MACHINE ? l : null;
      },
      { what: `${MAX_SESSIONS_PER_MACHINE} sessions of the machine listed` },
    );
    const ids = new Set(listed.map((s) => s.id));
    const floodIdx = [...ids]
      .filter((i) => i.startsWith('flood-'))
      .map((i) => Number(i.slice(6)))
      .sort((a, b) => a - b);
    expect([ids.has('good-1'), ids.has('good-2'), floodIdx[0], floodIdx.at(-1)]).toEqual([true, true, 0, MAX_SESSIONS_PER_MACHINE - 3]);
    expect([...ids].filter((id) => !/^(good-\d|flood-\d+)$/.test(id))).toEqual([]);
    expect(ids.has(`flood-${flood.length - 1}`)).toBe(false);

    // Verbs that look sessions up by prefix still answer in words.
    const send = await termio(['sessions', 'send', 'no-such-prefix', 'hi'], env);
    expect(send).toMatchObject({ status: 1, stderr: expect.stringContaining("no session matches 'no-such-prefix'") });
    expect((await termio(['machines', 'list'], env)).status).toBe(0);

    // One log line per reason.
    expect(droppedFor(env).sort()).toEqual(['malformed', 'too large', 'too many']);

    // Removed: nothing of it is listed any more.
    expect(await termio(['machines', 'remove', 'hostile'], env)).toMatchObject({ status: 0 });
    await waitFor(async () => (await remote()).length === 0, { what: "the machine's sessions to go" });
  });

  it("drops a session that takes a local session's id, and lists the local one once", async () => {
    const env = await hostWithMachine({ snapshot: [] }, false);
    const run = await termio(['sessions', 'run', '--json', '--', 'sleep', '600'], env);
    expect(run, run.stderr).toMatchObject({ status: 0 });
    const localId = (JSON.parse(run.stdout) as { id: string }).id;
    writeFileSync(env.FAKE_MACHINE_SESSIONS!, JSON.stringify({ snapshot: [session(localId, { title: 'IMPOSTOR' }), session('good-1')] }));
    await termio(['machines', 'add', 'hostile', 'me@hostile.invalid'], env);

    const all = await waitFor(
      async () => {
        const r = await termio(['sessions', 'list', '--json'], env);
        const l = (JSON.parse(r.stdout) as { sessions: SessionInfo[] }).sessions;
        return l.some((s) => s.id === 'good-1') ? l : null;
      },
      { what: "the machine's other session listed" },
    );
    expect(all.filter((s) => s.id === localId).map((s) => [s.machine ?? null, s.title])).toEqual([[null, expect.not.stringContaining('IMPOSTOR')]]);
    expect(droppedFor(env)).toEqual(['local id']);
  });

  it('that does not speak the host protocol at all is unreachable with that reason, not a bare SIGKILL', async () => {
    // A login script that prints a banner on stdout, and a stream claiming a 4 GiB message.
    const dir = join(process.env.TMPDIR ?? '/tmp', `babbling-ssh-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    scratch.push(dir);
    writeFileSync(
      join(dir, 'ssh'),
      `#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done\ncase "$2" in\n  *banner*) echo "Welcome to the lab box";;\n  *) printf '\\377\\377\\377\\377\\001';;\nesac\nexec sleep 300\n`,
    );
    chmodSync(join(dir, 'ssh'), 0o755);
    host = await startHostProcess({
      enabled: false,
      config: { 'machines.json': JSON.stringify({ machines: { banner: { target: 'me@banner.invalid' }, hugelen: { target: 'me@hugelen.invalid' } } }) },
      env: { PATH: `${dir}:${process.env.PATH}` },
    });
    const env = host.env;
    const whys = await waitFor(
      async () => {
        const r = await termio(['machines', 'list', '--json'], env);
        const l = (JSON.parse(r.stdout) as { machines: Array<{ name: string; state: string; why: string | null }> }).machines;
        return l.every((m) => m.state === 'unreachable') ? l.map((m) => [m.name, m.why]) : null;
      },
      { what: 'both machines unreachable' },
    );
    expect(whys).toEqual([
      ['banner', expect.stringMatching(/^banner did not speak Termio's host protocol \(.+\): a login script that prints/)],
      ['hugelen', expect.stringMatching(/^hugelen did not speak Termio's host protocol \(.+\): a login script that prints/)],
    ]);
  });
});
