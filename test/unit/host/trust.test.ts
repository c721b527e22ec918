// Who may change a session, through the real host: the real Host (catalog, hook server, status
// tracker, resume, control server) in a temporary HOME and TERMIO_HOME, fake agent CLIs on the
// PATH in real ptys, hooks installed by the host and run through the real launcher and reporter.
// A nested agent started by the session agent's Bash tool never rebinds its tab; a Codex started
// in another terminal in the same folder is never bound to a tab, and two tabs in one folder each
// get their own conversation; from inside a session, --bypass needs a session that runs with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import { Host } from '../../../src/app/host/host';
import type { Logger } from '../../../src/app/services/log';
import type { ControlArgs, ControlVerb } from '../../../src/protocol/control';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';
import { enterTestHome, leaveTestHome, startHostHere } from '../../helpers/testHome';
import { installHooks } from '../../helpers/installHooks';

const FAKES = resolve(__dirname, '..', '..', 'fakes');

let home: string;
let proj: string;
let agentLog: string;
let host: Host;
let logs: string[];
const outsiders: ChildProcess[] = [];

const logger: Logger = {
  debug: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
  info: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
  warn: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
  error: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
};

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-trust-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  agentLog = join(home, 'agents.log');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  // The agents as a user installs them: `claude` and `codex` on the PATH (exec keeps the pid).
  writeFake(bin, 'claude', 'fake-agent.mjs', 'claude');
  writeFake(bin, 'codex', 'fakeDiscoveredAgent.mjs');
  // Sessions inherit this process's environment (the host runs here): point it at the test HOME.
  enterTestHome(home, bin, { FAKE_AGENT_LOG: agentLog, FAKE_DISCOVERED_ROOT: join(home, '.codex', 'sessions') });
  logs = [];
  host = await startHostHere({ logger });
});

afterEach(async () => {
  for (const p of outsiders.splice(0)) p.kill('SIGKILL');
  await host?.dispose();
  leaveTestHome();
  rmSync(home, { recursive: true, force: true });
});

interface AgentLogEntry {
  agent: string;
  event: string;
  termioSession: string | null;
  id?: string;
}
const agentLogEntries = (): AgentLogEntry[] => {
  try {
    return readFileSync(agentLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AgentLogEntry);
  } catch {
    return [];
  }
};
const screen = (id: string) => host.registry.get(id)!.session.screenLines().join('\n');
const conversationOf = (id: string) => host.store.getSession(id)?.conversationId ?? null;

async function spawnAgent(agent: string, opts: { bypass?: boolean; cwd?: string } = {}): Promise<string> {
  const r = await host.registry.spawn({ agent, cwd: opts.cwd ?? proj, ...(opts.bypass ? { bypass: true } : {}) });
  if (!r.ok) throw new Error(r.message);
  return r.record.id;
}

/** The environment a session's agent really has (what a `termio` run inside it would read), once it has started. */
function environOf(id: string): Promise<NodeJS.ProcessEnv> {
  const pid = host.registry.get(id)!.session.pid;
  const read = (): NodeJS.ProcessEnv =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
  // Until the pty's child has exec'd the agent, /proc shows the environment it was forked with.
  return waitFor(() => (read().TERMIO_SESSION === id ? read() : null), { what: `the agent of ${id} to start` });
}

/** One request through the CLI's client, with the environment it would run in. */
async function request<V extends ControlVerb>(env: NodeJS.ProcessEnv, verb: V, args: ControlArgs<V>) {
  const c = await ControlClient.connect(env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  try {
    return await c.request(verb, args);
  } finally {
    c.close();
  }
}

describe('nested agents', () => {
  it("a `claude -p` run by the agent's Bash tool is recorded in why and never rebinds the tab", async () => {
    expect(installHooks(host, 'claude')).toMatchObject({ state: 'installed' });
    const id = await spawnAgent('claude');
    // Claude is pinned: the tab is bound to the id Termio minted, and the agent's SessionStart says so.
    const own = conversationOf(id);
    expect(own).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => host.hooks.stats.accepted >= 1, { what: "the agent's own SessionStart" });
    await waitFor(() => screen(id).includes('>'), { what: 'the prompt' });

    // The agent's Bash tool runs a nested Claude Code: same environment, same hooks, its own conversation.
    host.registry.get(id)!.session.write('!claude -p "summarise the repo"\r');
    await waitFor(() => screen(id).includes('ran: exit 0'), { what: 'the nested run to finish' });
    await waitFor(() => logs.some((l) => l.startsWith('hook report not applied') && l.includes('SessionStart')), {
      what: "the nested agent's SessionStart to be refused",
    });
    expect(conversationOf(id)).toBe(own);
    expect(await request(process.env, 'sessions.why', { id })).toMatchObject({
      ok: true,
      result: {
        health: expect.arrayContaining([
          expect.stringMatching(
            /^not applied: (SessionStart|UserPromptSubmit|Stop) report from a nested agent \(pid \d+, node\) started inside the session's agent/,
          ),
        ]),
      },
    });

    // The agent's own /clear still rebinds: its reports were never in doubt.
    host.registry.get(id)!.session.write('/clear\r');
    await waitFor(() => conversationOf(id) !== own, { what: 'the rebind after /clear' });
  });

  it("a hook the agent runs through a helper of its own (Qwen Code's StopFailure supervisor) counts when it names the tab's conversation", async () => {
    expect(installHooks(host, 'claude')).toMatchObject({ state: 'installed' });
    const id = await spawnAgent('claude');
    const own = conversationOf(id);
    await waitFor(() => host.hooks.stats.accepted >= 1, { what: "the agent's own SessionStart" });
    await waitFor(() => screen(id).includes('>'), { what: 'the prompt' });
    const session = host.registry.get(id)!.session;

    // The same process shape with another conversation is a nested agent's report: refused.
    session.write(`/hook-detached Stop {"session_id":"00000000-0000-4000-8000-000000000001"}\r`);
    await waitFor(() => screen(id).includes('hooked Stop #1'), { what: 'the first supervised hook to run' });
    await waitFor(() => host.tracker.lastIgnored(id)?.event === 'Stop', { what: 'the foreign Stop to be refused' });
    expect(host.tracker.lastIgnored(id)!.why).toMatch(/^from a nested agent \(pid \d+, node\)/);
    expect(host.tracker.status(id)?.why.event).not.toBe('Stop');

    // The tab's own conversation, reported through the helper: applied.
    session.write('/hook-detached Stop {}\r');
    await waitFor(() => host.tracker.status(id)?.why.event === 'Stop', { what: 'the supervised Stop applied' });
    expect(host.tracker.status(id)).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'Stop' } });
    expect(conversationOf(id)).toBe(own);
  });

  it("an agent its launcher spawns rather than execs (npm's codex.js) is still the session's own", async () => {
    // A node launcher that starts the agent as its child and waits, as npm's codex.js does.
    writeFileSync(
      join(home, 'bin', 'claude'),
      `#!${process.execPath}\nconst c = require('child_process').spawn(process.execPath, [${JSON.stringify(join(FAKES, 'fake-agent.mjs'))}, 'claude', ...process.argv.slice(2)], { stdio: 'inherit' });\nc.on('exit', (code) => process.exit(code ?? 1));\n`,
      { mode: 0o755 },
    );
    expect(installHooks(host, 'claude')).toMatchObject({ state: 'installed' });
    const id = await spawnAgent('claude');
    await waitFor(() => screen(id).includes('>'), { what: 'the prompt' });
    host.registry.get(id)!.session.write('fix the tests\r');
    await waitFor(() => host.tracker.status(id)?.why.event === 'Stop', { what: 'the Stop hook applied' });
    expect(host.tracker.status(id)).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'Stop' } });
    expect(host.tracker.lastIgnored(id)).toBeNull();
  });
});

describe('discovered conversations', () => {
  /** A Codex started in another terminal (not in Termio) in the same folder. */
  function outsideCodex(): Promise<string> {
    const before = agentLogEntries().length;
    const p = spawn(process.execPath, [join(FAKES, 'fakeDiscoveredAgent.mjs')], {
      cwd: proj,
      env: { PATH: process.env.PATH, HOME: home, FAKE_AGENT_LOG: agentLog, FAKE_DISCOVERED_ROOT: join(home, '.codex', 'sessions'), FAKE_RECORD_DELAY_MS: '0' },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    outsiders.push(p);
    return waitFor(
      () =>
        agentLogEntries()
          .slice(before)
          .find((e) => e.event === 'recordWritten' && e.termioSession === null)?.id,
      { what: 'the outside codex to write its record' },
    );
  }
  const seenByHost = (id: string) =>
    waitFor(() => logs.some((l) => l.startsWith('discovery: new record') && l.includes(id)), { what: `the host to read record ${id}` });
  const minted = (sessionId: string) =>
    waitFor(() => agentLogEntries().find((e) => e.event === 'minted' && e.termioSession === sessionId)?.id, { what: `${sessionId}'s agent to mint its id` });

  it('never binds a waiting tab to a codex started outside Termio in the same folder', async () => {
    const tab = await spawnAgent('codex');
    const mine = await minted(tab);
    const theirs = await outsideCodex();
    await seenByHost(theirs);
    expect(conversationOf(tab)).toBeNull();
    // The tab's own agent writes its record with the first message: that one binds.
    await waitFor(() => screen(tab).includes('>'), { what: 'the prompt' });
    host.registry.get(tab)!.session.write('hello\r');
    await waitFor(() => conversationOf(tab), { what: 'the tab bound' });
    expect(conversationOf(tab)).toBe(mine);
  });

  it('two tabs in one folder and one outside codex: each tab gets its own conversation, the outside one none', async () => {
    const a = await spawnAgent('codex');
    const b = await spawnAgent('codex');
    const [ida, idb] = [await minted(a), await minted(b)];
    const theirs = await outsideCodex();
    await seenByHost(theirs);
    for (const [tab, text] of [
      [b, 'b first'],
      [a, 'then a'],
    ] as const) {
      await waitFor(() => screen(tab).includes('>'), { what: 'the prompt' });
      host.registry.get(tab)!.session.write(`${text}\r`);
    }
    await waitFor(() => conversationOf(a) && conversationOf(b), { what: 'both tabs bound' });
    expect([conversationOf(a), conversationOf(b)]).toEqual([ida, idb]);
    expect(host.store.state.sessions.map((s) => s.conversationId)).not.toContain(theirs);
  });
});

describe('the control socket from inside a session', () => {
  const spawnFrom = (env: NodeJS.ProcessEnv) => request(env, 'sessions.spawn', { agent: 'claude', cwd: proj, bypass: true });

  it('refuses --bypass unless the asking session runs with bypass, and logs each decision', async () => {
    const plain = await spawnAgent('claude');
    const trusted = await spawnAgent('claude', { bypass: true });
    const fromPlain = await environOf(plain);
    expect(fromPlain.TERMIO_SESSION_SECRET).toMatch(/^[\w-]{43}$/);
    expect((await environOf(trusted)).TERMIO_SESSION_SECRET).not.toBe(fromPlain.TERMIO_SESSION_SECRET);

    expect(await spawnFrom(fromPlain)).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: expect.stringContaining(`session ${plain} runs without permission bypass`) },
    });
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^control: sessions.spawn: bypass start refused .*"caller":"${plain}"`)));
    // A secret no running session has (a stale or made-up one) is refused too.
    expect(await spawnFrom({ ...fromPlain, TERMIO_SESSION_SECRET: 'x'.repeat(43) })).toMatchObject({ ok: false, error: { code: 'forbidden' } });

    const byTrusted = await spawnFrom(await environOf(trusted));
    expect(byTrusted).toMatchObject({ ok: true });
    expect(logs).toContainEqual(
      expect.stringMatching(new RegExp(`^control: sessions.spawn: bypass start allowed \\(the asking session runs with bypass\\).*"caller":"${trusted}"`)),
    );
    // The user's own terminal (no session secret) may.
    const outside = { ...fromPlain };
    delete outside.TERMIO_SESSION_SECRET;
    expect(await spawnFrom(outside)).toMatchObject({ ok: true });
    expect(host.registry.list().filter((r) => r.bypass)).toHaveLength(3);
  });
});
