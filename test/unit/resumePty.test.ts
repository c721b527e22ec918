// Resume end to end in the host, with real ptys running the fake agents (test/fakes) in a
// temporary HOME and TERMIO_HOME: plan → spawn → the agent writes its record → "restart" (a new
// StateStore reading the file and a new ResumeService) → the plan resumes the same id → the fake
// confirms it continued that record. And: two discovered sessions in one folder never swap ids.
// A discovered record binds by discovery when the session's agent holds it open (the rollout
// style, like Codex), or, written and closed (the json style), when it is the only agent of its
// kind in the folder; otherwise by its hook, which the fake runs for real: bin/termio-hook → a
// HookServer → the StatusTracker → the resume service, wired as the host wires them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Session } from '../../src/terminal/node';
import { StateStore } from '../../src/app/host/state/stateStore';
import { ResumeService, type ResumeLaunch } from '../../src/app/host/resume/resumeService';
import type { Logger } from '../../src/app/services/log';
import type { ResumeManifestInput } from '../../src/protocol/resumePlan';
import { waitFor } from '../helpers/waitFor';
import { startHookRig, type HookRig } from '../helpers/hookRig';

const fakes = resolve(__dirname, '../fakes');
const reporter = resolve(__dirname, '../../bin/termio-hook');
const pinnedManifest = (storeMatch: 'file:{id}.jsonl' | 'dir:{id}'): ResumeManifestInput => ({
  id: 'fake-pinned',
  command: join(fakes, 'fakePinnedAgent.mjs'),
  permissionBypassFlag: '--yolo',
  resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.fakepinned/sessions', storeMatch },
});
const rolloutManifest: ResumeManifestInput = {
  id: 'fake-codex',
  command: join(fakes, 'fakeDiscoveredAgent.mjs'),
  resume: { resume: 'resume {id}', discover: { root: '~/.fakecodex/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' } },
};
const jsonManifest: ResumeManifestInput = {
  id: 'fake-opencode',
  command: join(fakes, 'fakeDiscoveredAgent.mjs'),
  resume: { resume: '--session {id}', discover: { root: '~/.fakeopencode/storage/session', format: 'json', id: 'id', cwd: 'directory' } },
};
/** Resumes by forking, as Continue's CLI does: the conversation goes on under a new id. */
const forkManifest: ResumeManifestInput = { ...jsonManifest, id: 'fake-continue', resume: { ...jsonManifest.resume, resume: '--fork {id}', forks: true } };

interface LogEntry {
  agent: string;
  event: string;
  pid: number;
  termioSession: string | null;
  [k: string]: unknown;
}

let home: string;
let proj: string;
let stateFile: string;
let agentLog: string;
let hookFile: string;
let extraEnv: Record<string, string>;
let manifests: ResumeManifestInput[];
let logs: string[];
let rig: HookRig;
const live: Array<{ dispose(): void }> = [];
/** Each running session's agent pid, as the host's tracker knows it. */
const agentPids = new Map<string, number>();

const logger: Logger = {
  debug: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  info: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  warn: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  error: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
};

beforeEach(async () => {
  rig = await startHookRig('termio-resume-hooks-');
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-resume-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  stateFile = join(home, '.termio', 'state', 'sessions.json');
  agentLog = join(home, 'agents.log');
  hookFile = join(home, 'hooks.log');
  extraEnv = {};
  manifests = [pinnedManifest('file:{id}.jsonl'), rolloutManifest, jsonManifest, forkManifest];
  logs = [];
});
afterEach(async () => {
  for (const d of live.splice(0).reverse()) d.dispose();
  agentPids.clear();
  await rig.close();
  rmSync(home, { recursive: true, force: true });
});

/** One "run of the app": a store read from disk and a resume service on it. */
function startApp() {
  const { store, problem } = StateStore.open({ file: stateFile, writeDelayMs: 10 });
  expect(problem).toBeNull();
  const resume = new ResumeService({
    store,
    home,
    logger,
    manifestOf: (id) => manifests.find((m) => m.id === id) ?? null,
    processOf: (id) => agentPids.get(id),
  });
  // As the host wires them: a conversation the tracker learns from a hook rebinds the session.
  const wired = rig.tracker.onConversation((c) => resume.rebind(c.sessionId, c.conversationId));
  const app = {
    store,
    resume,
    dispose: () => {
      wired.dispose();
      resume.dispose();
      store.dispose();
    },
  };
  live.push(app);
  return app;
}

function agentLogEntries(): LogEntry[] {
  if (!existsSync(agentLog)) return [];
  return readFileSync(agentLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The hooks part of a discovered agent's manifest: its SessionStart names the conversation. */
const hookAgent = (agentId: string) => ({
  agentId,
  hooks: { dialect: 'claude', conversation: 'session_id', events: [{ on: 'SessionStart', state: 'idle' as const }] },
});

function spawn(plan: ResumeLaunch, sessionId: string, cwd = proj, agentId?: string): Session {
  const minted = rig.secrets.mint(sessionId);
  const hookEnv = agentId ? { ...rig.server.sessionEnv(), ...minted.env, FAKE_HOOK_REPORTER: reporter, FAKE_HOOK_AGENT: agentId } : {};
  const s = Session.spawn({
    argv: plan.argv,
    cwd,
    id: sessionId,
    env: { HOME: home, FAKE_AGENT_LOG: agentLog, FAKE_HOOK_FILE: hookFile, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...hookEnv, ...extraEnv },
  });
  if ('kind' in s) throw new Error(s.message);
  live.push(s);
  if (agentId) live.push(rig.tracker.track(s, hookAgent(agentId)));
  agentPids.set(sessionId, s.pid);
  return s;
}

/** Hangs up a session and waits until its agent's process is gone. */
async function ended(s: Session): Promise<void> {
  const pid = s.pid;
  s.dispose();
  await waitFor(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    { what: `agent ${pid} to exit` },
  );
}

const screenHas = (s: Session, text: string) =>
  waitFor(() => s.screenLines().some((l) => l.includes(text)), { what: `"${text}" on screen (${s.screenLines().filter(Boolean).join(' | ')})` });
const event = (ev: string, sessionId: string, since = 0) =>
  waitFor(
    () =>
      agentLogEntries()
        .slice(since)
        .find((e) => e.event === ev && e.termioSession === sessionId),
    { what: `${ev} from ${sessionId}` },
  );

/** Plans and spawns a session; with `hooksOf`, its agent's SessionStart hook runs for real. */
async function launch(app: ReturnType<typeof startApp>, sessionId: string, hooksOf?: string): Promise<{ plan: ResumeLaunch; session: Session }> {
  const plan = await app.resume.prepareLaunch(sessionId);
  if ('kind' in plan) throw new Error(plan.message);
  return { plan, session: spawn(plan, sessionId, proj, hooksOf) };
}

describe.each([
  ['file:{id}.jsonl', 'file'],
  ['dir:{id}', 'dir'],
] as const)('pinned agent, store %s', (storeMatch, style) => {
  beforeEach(() => {
    manifests[0] = pinnedManifest(storeMatch);
    extraEnv.FAKE_PINNED_STORE = style;
  });

  it('creates, then resumes the same conversation after a restart', async () => {
    let app = startApp();
    app.store.addSession({ id: 'p1', agentId: 'fake-pinned', cwd: proj, bypass: true }, { windowId: 'w1' });
    const first = await launch(app, 'p1');
    expect(first.plan.mode).toBe('create');
    const id = first.plan.conversationId!;
    expect(first.plan.argv).toEqual([join(fakes, 'fakePinnedAgent.mjs'), '--session-id', id, '--yolo']);
    // The id is on disk before the agent runs.
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).sessions[0]).toMatchObject({ conversationId: id, family: 'pinned' });
    await screenHas(first.session, `New conversation ${id}`);
    expect((await event('start', 'p1')).argv).toEqual(['--session-id', id, '--yolo']);
    first.session.write('remember the parser bug\r');
    await event('recordWritten', 'p1');
    app.dispose();

    app = startApp();
    const n = agentLogEntries().length;
    const second = await launch(app, 'p1');
    expect(second.plan).toMatchObject({ mode: 'resume', conversationId: id, argv: [join(fakes, 'fakePinnedAgent.mjs'), '--resume', id, '--yolo'] });
    const resumed = await event('resumed', 'p1', n);
    expect(resumed).toMatchObject({ id, earlier: ['remember the parser bug'] });
    await screenHas(second.session, `Resumed conversation ${id} (1 earlier messages)`);
    expect(await app.resume.describe('p1')).toMatchObject({ family: 'pinned', boundId: id, plan: { mode: 'resume', argv: second.plan.argv } });
  });

  it('creates again under the same id when the agent never wrote its record', async () => {
    let app = startApp();
    app.store.addSession({ id: 'p1', agentId: 'fake-pinned', cwd: proj }, { windowId: 'w1' });
    const first = await launch(app, 'p1');
    const id = first.plan.conversationId!;
    await screenHas(first.session, `New conversation ${id}`);
    app.dispose(); // Quit before typing anything: no record.

    app = startApp();
    const n = agentLogEntries().length;
    const second = await launch(app, 'p1');
    expect(second.plan).toMatchObject({ mode: 'create', conversationId: id });
    expect(await event('created', 'p1', n)).toMatchObject({ id });
    expect(
      agentLogEntries()
        .slice(n)
        .some((e) => e.event === 'refused'),
    ).toBe(false);
  });
});

describe.each([
  ['rollout jsonl (held open: bound by discovery)', 'rollout', 'fake-codex', (id: string) => ['resume', id]],
  ['standalone json (written and closed: discovery or its hook binds it)', 'json', 'fake-opencode', (id: string) => ['--session', id]],
] as const)('discovered agent, %s records', (_name, style, agentId, resumeArgs) => {
  beforeEach(() => {
    extraEnv.FAKE_DISCOVERED_STYLE = style;
  });

  it('binds the new record after launch and resumes it after a restart', async () => {
    let app = startApp();
    app.store.addSession({ id: 'd1', agentId, cwd: proj }, { windowId: 'w1' });
    const heard: Array<{ sessionId: string; conversationId: string }> = [];
    rig.tracker.onConversation((c) => heard.push(c));
    const first = await launch(app, 'd1', agentId);
    expect(first.plan).toMatchObject({ mode: 'fresh', conversationId: null, argv: [join(fakes, 'fakeDiscoveredAgent.mjs')] });
    const minted = (await event('minted', 'd1')).id as string;
    await screenHas(first.session, '>');
    first.session.write('hello there\r');
    // Written and closed (json), discovery binds it only if it caught the agent writing; either
    // way the agent's SessionStart hook names it, through the reporter and the hook server.
    await waitFor(() => heard.some((c) => c.sessionId === 'd1' && c.conversationId === minted), { what: "the hook's conversation reaching the tracker" });
    await waitFor(() => app.store.getSession('d1')?.conversationId === minted, { what: 'the minted id bound' });
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).sessions[0]).toMatchObject({ conversationId: minted, family: 'discovered' });
    app.dispose();

    app = startApp();
    const n = agentLogEntries().length;
    const second = await launch(app, 'd1');
    expect(second.plan).toMatchObject({ mode: 'resume', conversationId: minted, argv: [join(fakes, 'fakeDiscoveredAgent.mjs'), ...resumeArgs(minted)] });
    expect(await event('resumed', 'd1', n)).toMatchObject({ id: minted, earlier: ['hello there'] });
  });
});

describe('discovered agent, records written and closed, no hooks', () => {
  const outsiders: ChildProcess[] = [];
  beforeEach(() => {
    extraEnv.FAKE_DISCOVERED_STYLE = 'json';
  });
  afterEach(() => {
    for (const p of outsiders.splice(0)) p.kill('SIGKILL');
  });
  const written = (sessionId: string | null) =>
    waitFor(() => agentLogEntries().find((e) => e.event === 'recordWritten' && e.termioSession === sessionId)?.id as string | undefined, {
      what: `the record of ${sessionId ?? 'the outside agent'}`,
    });
  const readByDiscovery = (id: string) =>
    waitFor(() => logs.some((l) => l.startsWith('discovery: new record') && l.includes(id)) || explain(), { what: `discovery to read ${id}` });
  /** Throws what discovery last said, for a timeout's message. */
  const explain = (): never => {
    const said = logs.filter((l) => l.startsWith('discovery:')).slice(-6);
    throw new Error(`discovery said: ${said.join(' | ') || 'nothing'}`);
  };
  /** Holds once `sessionId` is bound to `id`; until then explains. */
  const boundTo = (app: ReturnType<typeof startApp>, sessionId: string, id: string): boolean =>
    app.store.getSession(sessionId)?.conversationId === id || explain();
  const notedNow = (kind: string) => logs.some((l) => l.startsWith('discovery: a record nobody holds open') && l.includes(`"kind":"${kind}"`));
  const noted = (kind: string) => waitFor(() => notedNow(kind), { what: `the ${kind} note` });

  it('a single tab binds its record by discovery alone and resumes it after a restart', async () => {
    let app = startApp();
    app.store.addSession({ id: 'j1', agentId: 'fake-opencode', cwd: proj }, { windowId: 'w1' });
    const first = await launch(app, 'j1');
    await screenHas(first.session, '>');
    first.session.write('hello there\r');
    const id = await written('j1');
    await waitFor(() => boundTo(app, 'j1', id), { what: 'the closed record bound' });
    expect(logs.some((l) => l.startsWith('discovery: bound') && l.includes('"by":"only agent in the folder"'))).toBe(true);
    await event('message', 'j1');
    app.dispose();

    app = startApp();
    const n = agentLogEntries().length;
    const second = await launch(app, 'j1');
    expect(second.plan).toMatchObject({ mode: 'resume', conversationId: id, argv: [join(fakes, 'fakeDiscoveredAgent.mjs'), '--session', id] });
    expect(await event('resumed', 'j1', n)).toMatchObject({ id, earlier: ['hello there'] });
    // It goes on in the same record: nothing to wait for, and no neighbour is kept from binding.
    expect(app.resume.discovery.isPending('j1')).toBe(false);
  });

  it('a resume that forks binds the fork, so the next relaunch resumes the fork with its later turns', async () => {
    let app = startApp();
    app.store.addSession({ id: 'f1', agentId: 'fake-continue', cwd: proj }, { windowId: 'w1' });
    const first = await launch(app, 'f1');
    await screenHas(first.session, '>');
    first.session.write('hello there\r');
    const id = await written('f1');
    await waitFor(() => boundTo(app, 'f1', id), { what: 'the first record bound' });
    app.dispose();
    // A relaunch follows the agent's end (a reboot, a host restart with no holders): a fork that
    // still saw the earlier agent running in the folder could not tell whose its record is.
    await ended(first.session);

    app = startApp();
    let n = agentLogEntries().length;
    const second = await launch(app, 'f1');
    expect(second.plan).toMatchObject({ mode: 'resume', conversationId: id, argv: [join(fakes, 'fakeDiscoveredAgent.mjs'), '--fork', id] });
    const forked = await event('forked', 'f1', n);
    expect(forked).toMatchObject({ from: id, earlier: ['hello there'] });
    await screenHas(second.session, '>');
    second.session.write('later turn\r');
    await waitFor(() => boundTo(app, 'f1', forked.id as string), { what: 'the fork bound' });
    await event('message', 'f1', n);
    app.dispose();
    await ended(second.session);

    app = startApp();
    n = agentLogEntries().length;
    const third = await launch(app, 'f1');
    expect(third.plan).toMatchObject({ mode: 'resume', conversationId: forked.id, argv: [join(fakes, 'fakeDiscoveredAgent.mjs'), '--fork', forked.id] });
    expect(await event('forked', 'f1', n)).toMatchObject({ from: forked.id, earlier: ['hello there', 'later turn'] });
  });

  it('two tabs in one folder do not bind by it', async () => {
    const app = startApp();
    for (const sid of ['j1', 'j2']) app.store.addSession({ id: sid, agentId: 'fake-opencode', cwd: proj }, { windowId: 'w1' });
    const tabs = [await launch(app, 'j1'), await launch(app, 'j2')];
    for (const t of tabs) await screenHas(t.session, '>');
    tabs[0]!.session.write('first\r');
    const id1 = await written('j1');
    await readByDiscovery(id1);
    // Discovery has judged the record: it waits, saying the other tab is why, or a scan caught the
    // agent holding it mid-write and bound it by that evidence (to its own tab, checked below).
    await waitFor(() => notedNow('neighbours') || app.store.getSession('j1')?.conversationId === id1 || explain(), {
      what: 'the neighbours note (or a bind by the held-open record)',
    });
    tabs[1]!.session.write('second\r');
    const id2 = await written('j2');
    await readByDiscovery(id2);
    expect(logs.filter((l) => l.startsWith('discovery: bound') && l.includes('only agent in the folder'))).toEqual([]);
    // A scan that catches a tab's agent in the middle of writing its record sees it hold it open,
    // which binds by that evidence: so a tab may be bound, but only ever to its own record.
    expect([null, id1]).toContain(app.store.getSession('j1')?.conversationId);
    expect([null, id2]).toContain(app.store.getSession('j2')?.conversationId);
  });

  it('a record written by the agent in another terminal in the folder does not bind', async () => {
    const app = startApp();
    app.store.addSession({ id: 'j1', agentId: 'fake-opencode', cwd: proj }, { windowId: 'w1' });
    const tab = await launch(app, 'j1');
    await screenHas(tab.session, '>');
    const outside = spawnChild(process.execPath, [join(fakes, 'fakeDiscoveredAgent.mjs')], {
      cwd: proj,
      env: { PATH: process.env.PATH, HOME: home, FAKE_AGENT_LOG: agentLog, FAKE_DISCOVERED_STYLE: 'json', FAKE_RECORD_DELAY_MS: '0' },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    outsiders.push(outside);
    const theirs = await written(null);
    await readByDiscovery(theirs);
    await noted('foreign');
    expect(app.store.getSession('j1')?.conversationId).toBeNull();
    expect(app.resume.discovery.isPending('j1')).toBe(true);
  });
});

describe('two discovered sessions in one folder', () => {
  const ROUNDS = 4;
  it(`never swap ids (${ROUNDS} rounds: together, staggered, one agent with hooks, both with hooks)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const cwd = join(proj, `r${round}`);
      mkdirSync(cwd);
      const [a, b] = [`a${round}`, `b${round}`];
      let app = startApp();
      app.store.addSession({ id: a, agentId: 'fake-codex', cwd }, { windowId: 'w1' });
      app.store.addSession({ id: b, agentId: 'fake-codex', cwd }, { windowId: 'w1' });
      const staggered = round === 1;
      // Round 2: only a's agent runs its hook; in the others both do (for real, through the reporter).
      const hooked = (sid: string) => round !== 2 || sid === a;
      const launchOne = async (sid: string, delayMs: number) => {
        const plan = await app.resume.prepareLaunch(sid);
        if ('kind' in plan) throw new Error(plan.message);
        extraEnv.FAKE_RECORD_DELAY_MS = String(delayMs);
        return spawn(plan, sid, cwd, hooked(sid) ? 'fake-codex' : undefined);
      };
      const heard: Array<{ sessionId: string; conversationId: string }> = [];
      const listening = rig.tracker.onConversation((c) => heard.push(c));
      // Together: both launched before either record appears. Staggered: a's record exists first.
      await launchOne(a, staggered ? 0 : 300 + Math.random() * 200);
      if (staggered) await waitFor(() => app.store.getSession(a)?.conversationId, { what: 'a bound before b launches' });
      await launchOne(b, 300 + Math.random() * 200);
      const ida = (await event('recordWritten', a)).id as string;
      const idb = (await event('recordWritten', b)).id as string;
      await waitFor(
        () =>
          [ida, idb].every(
            (id) => logs.some((l) => l.startsWith('discovery: new record') && l.includes(id)) || app.store.state.sessions.some((s) => s.conversationId === id),
          ),
        { what: 'both records read' },
      );

      // Each agent holds its own record open: discovery alone binds each tab to its own, however launched.
      await waitFor(() => app.store.getSession(a)!.conversationId && app.store.getSession(b)!.conversationId, { what: 'both bound by discovery' });
      expect([app.store.getSession(a)!.conversationId, app.store.getSession(b)!.conversationId]).toEqual([ida, idb]);

      // The hooks agree with discovery and change nothing; in round 2 b has no hook at all and
      // keeps what discovery bound (there is no binding "by elimination": discovery did it).
      for (const sid of [a, b].filter(hooked)) await waitFor(() => heard.some((c) => c.sessionId === sid), { what: `${sid}'s hook at the tracker` });
      expect(heard.map((c) => [c.sessionId, c.conversationId]).sort()).toEqual(
        [
          [a, ida],
          [b, idb],
        ]
          .filter(([sid]) => hooked(sid!))
          .sort(),
      );
      expect([app.store.getSession(a)!.conversationId, app.store.getSession(b)!.conversationId]).toEqual([ida, idb]);
      listening.dispose();
      app.dispose();
      for (const d of live.splice(0)) d.dispose();

      app = startApp();
      const n = agentLogEntries().length;
      for (const sid of [a, b]) {
        const plan = await app.resume.prepareLaunch(sid);
        if ('kind' in plan) throw new Error(plan.message);
        expect(plan.mode).toBe('resume');
        spawn(plan, sid, cwd);
      }
      expect((await event('resumed', a, n)).id).toBe(ida);
      expect((await event('resumed', b, n)).id).toBe(idb);
      app.dispose();
      for (const d of live.splice(0)) d.dispose();
    }
  }, 60_000);
});
