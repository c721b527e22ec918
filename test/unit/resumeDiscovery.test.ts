// Discovered-record binding (src/app/host/resume/resumeDiscovery.ts) on real folders, a real watcher and
// real processes: a session binds the one new record its own process holds open, once, or the one
// written and closed when it is the only agent of its kind in the folder; never a record another
// process of the agent in that folder wrote (another terminal's agent), never one of two tabs in
// one folder by that rule, never an old, bound or unreadable one, and nothing when it holds two.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ResumeDiscovery, type DiscoveryBinding } from '../../src/app/host/resume/resumeDiscovery';
import type { Logger } from '../../src/app/services/log';
import type { DiscoverInput } from '../../src/protocol/resumePlan';
import { FileHolder } from '../helpers/fileHolder';
import { waitFor } from '../helpers/waitFor';

const rollout: DiscoverInput = { root: '~/.codex/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' };
const jsonSpec: DiscoverInput = { root: '~/.oc/session', format: 'json', id: 'id', cwd: 'directory' };

let home: string;
let proj: string;
let binds: DiscoveryBinding[];
let logs: string[];
let bound: Map<string, string>;
let disc: ResumeDiscovery;
/** Each tracked session's "agent": a real process that writes and holds its records. */
let agents: Map<string, FileHolder>;
/** Sessions whose agent pid the host does not know yet. */
let hiddenPids: Set<string>;
/** Processes besides the sessions' agents, killed after each test. */
let others: FileHolder[];
/** The program every test agent runs as (the manifest command's name). */
const PROGRAM = 'fakeagent';

const logger: Logger = {
  debug: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  info: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  warn: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  error: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
};

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-disc-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  binds = [];
  logs = [];
  bound = new Map();
  agents = new Map();
  hiddenPids = new Set();
  others = [];
  disc = new ResumeDiscovery({
    home,
    logger,
    boundSessionOf: (id) => bound.get(id) ?? null,
    processOf: (sid) => (hiddenPids.has(sid) ? undefined : agents.get(sid)?.pid),
    onBind: (b) => binds.push(b),
  });
});
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail') console.log(`discovery log of the failed test:\n${logs.join('\n')}`);
  disc.dispose();
  for (const a of [...agents.values(), ...others]) a.kill();
  rmSync(home, { recursive: true, force: true });
});

/** The session's agent process, running in the session's folder (started on first use). */
function agent(sessionId: string, opts: { cwd?: string; close?: boolean } = {}): FileHolder {
  let a = agents.get(sessionId);
  if (!a) agents.set(sessionId, (a = new FileHolder({ cwd: opts.cwd ?? proj, name: PROGRAM, close: opts.close })));
  return a;
}

/** A process outside every session, in a folder: another terminal's agent, or another program. */
function outsider(opts: { cwd?: string; name?: string; close?: boolean } = {}): FileHolder {
  const o = new FileHolder({ cwd: opts.cwd ?? proj, name: opts.name ?? PROGRAM, close: opts.close });
  others.push(o);
  return o;
}

/**
 * Tracks a session whose agent is running. The record folders exist first, as they do once an
 * agent has run here before: a folder tree made in one go right after the watcher started is its
 * own case (the last test), since a watcher can see such a tree only when its next event comes.
 */
function track(sessionId: string, cwd: string, discover: DiscoverInput = rollout, opts: { close?: boolean } = {}) {
  mkdirSync(cwd, { recursive: true });
  agent(sessionId, { cwd, close: opts.close });
  for (const day of ['02', '03', '04', '05']) mkdirSync(join(home, '.codex/sessions/2026/01', day), { recursive: true });
  mkdirSync(join(home, '.oc/session/global'), { recursive: true });
  return disc.track({ sessionId, cwd, discover, program: PROGRAM });
}

/** A Codex-like record, written and held open by `by` (a session's agent or another process), or written and closed by this test when omitted. */
async function writeRollout(cwd: string, opts: { by?: FileHolder; id?: string; day?: string } = {}): Promise<{ id: string; path: string }> {
  const id = opts.id ?? randomUUID();
  const dir = join(home, '.codex/sessions', opts.day ?? '2026/01/02');
  const path = join(dir, `rollout-2026-01-02T10-00-00-${id}.jsonl`);
  const text = `${JSON.stringify({ type: 'session_meta', payload: { id, cwd } })}\n{"type":"x"}\n`;
  if (opts.by) await opts.by.hold(path, text);
  else {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, text);
  }
  return { id, path };
}
/** Waits until the watcher has read the record of each id (its 'new record' log line). */
async function seen(...ids: string[]) {
  await waitFor(() => ids.every((id) => logs.some((l) => l.startsWith('discovery: new record') && l.includes(id))), {
    what: `the watcher to read ${ids.join(', ')}`,
  });
}

describe('ResumeDiscovery', () => {
  it('binds the one new record whose cwd is the session cwd and which its agent holds, once', async () => {
    await track('A', proj);
    // B waits in another folder and keeps the watcher open after A is bound.
    await track('B', join(home, 'b'));
    await writeRollout(join(home, 'other'), { by: agent('A') });
    const r = await writeRollout(proj, { by: agent('A') });
    await waitFor(() => binds.length === 1, { what: 'the bind' });
    expect(binds).toEqual([{ sessionId: 'A', conversationId: r.id, recordPath: r.path }]);
    expect(disc.isPending('A')).toBe(false);
    const later = await writeRollout(proj, { by: agent('A') });
    await seen(later.id);
    expect(binds).toHaveLength(1);
  });

  it('never binds a record its agent does not hold: an agent in another terminal, in the same folder', async () => {
    const outside = outsider();
    await track('A', proj);
    const theirs = await writeRollout(proj, { by: outside });
    await seen(theirs.id);
    expect(binds).toEqual([]);
    expect(disc.isPending('A')).toBe(true);
    // A record written and closed (by no process of the session) is not bound either: another
    // process of the agent runs in the folder.
    const closed = await writeRollout(proj);
    await seen(closed.id);
    expect(binds).toEqual([]);
    // Then A's own agent writes its record: that one binds, and only that one.
    const mine = await writeRollout(proj, { by: agent('A') });
    await waitFor(() => binds.length === 1, { what: 'the bind of the held record' });
    expect(binds).toEqual([{ sessionId: 'A', conversationId: mine.id, recordPath: mine.path }]);
  });

  it('matches cwd after resolving symlinks on either side', async () => {
    const link = join(home, 'link');
    symlinkSync(proj, link);
    await track('A', link);
    const r = await writeRollout(proj, { by: agent('A') });
    await waitFor(() => binds.length === 1, { what: 'the bind through a symlink' });
    expect(binds[0]!.conversationId).toBe(r.id);
  });

  it('ignores records that existed before the launch and old files moved in', async () => {
    await writeRollout(proj, { by: agent('A') });
    await track('A', proj);
    const id = randomUUID();
    const old = join(home, 'old.jsonl');
    await agent('A').hold(old, `${JSON.stringify({ type: 'session_meta', payload: { id, cwd: proj } })}\n`);
    const past = new Date(Date.now() - 3600_000);
    utimesSync(old, past, past);
    const target = join(home, '.codex/sessions/2026/01/02/rollout-old.jsonl');
    mkdirSync(join(target, '..'), { recursive: true });
    renameSync(old, target);
    await seen(id);
    expect(binds).toEqual([]);
    expect(disc.isPending('A')).toBe(true);
  });

  it("two sessions in one folder each bind the record their own agent holds, never the neighbour's", async () => {
    await track('A', proj);
    await track('B', proj);
    // B's record first, then A's: the order of appearance decides nothing.
    const rb = await writeRollout(proj, { by: agent('B') });
    const ra = await writeRollout(proj, { by: agent('A') });
    await waitFor(() => binds.length === 2, { what: 'both binds' });
    expect(binds.sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual([
      { sessionId: 'A', conversationId: ra.id, recordPath: ra.path },
      { sessionId: 'B', conversationId: rb.id, recordPath: rb.path },
    ]);
  });

  it('a hook settles a session; its record is then no candidate for anyone', async () => {
    await track('A', proj);
    await track('B', proj);
    // Written and closed: no session's process holds it, so only a hook can say whose it is.
    const ra = await writeRollout(proj);
    await seen(ra.id);
    expect(binds).toEqual([]);
    disc.settle('A', ra.id);
    expect(disc.isPending('A')).toBe(false);
    // Even if B's agent now opens that record, it stays A's.
    await agent('B').hold(ra.path, '');
    const rb = await writeRollout(proj, { by: agent('B') });
    await waitFor(() => binds.length === 1, { what: "B's bind" });
    expect(binds).toEqual([{ sessionId: 'B', conversationId: rb.id, recordPath: rb.path }]);
  });

  it('keeps a session waiting when its agent holds two new records of its folder', async () => {
    outsider(); // Another agent in the folder: a record nobody holds cannot bind.
    await track('A', proj);
    // The first appears held by nobody, so it cannot bind; then A's agent holds it and a second.
    const r1 = await writeRollout(proj);
    await seen(r1.id);
    await agent('A').hold(r1.path, '');
    const r2 = await writeRollout(proj, { by: agent('A') });
    await seen(r2.id);
    await waitFor(() => logs.some((l) => l.startsWith('discovery: the session holds several new records')), { what: 'the ambiguity noted' });
    expect(binds).toEqual([]);
    expect(disc.isPending('A')).toBe(true);
  });

  it('never binds a record already bound to another session', async () => {
    const taken = randomUUID();
    bound.set(taken, 'other-session');
    await track('A', proj);
    await writeRollout(proj, { by: agent('A'), id: taken });
    await seen(taken);
    expect(binds).toEqual([]);
    const r = await writeRollout(proj, { by: agent('A') });
    await waitFor(() => binds.length === 1, { what: 'the unbound record' });
    expect(binds[0]!.conversationId).toBe(r.id);
  });
  it('skips compressed, too large, malformed and unsafe records with a log line', async () => {
    await track('A', proj);
    const dir = join(home, '.codex/sessions/2026/01/03');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rollout-a.jsonl.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2]));
    writeFileSync(join(dir, 'rollout-b.jsonl'), gzipSync(Buffer.from(`${JSON.stringify({ payload: { id: randomUUID(), cwd: proj } })}\n`)));
    writeFileSync(join(dir, 'rollout-c.jsonl'), `{"payload":{"cwd":"${proj}","id":"${'x'.repeat(1100 * 1024)}`);
    writeFileSync(join(dir, 'rollout-d.jsonl'), 'not json at all\n');
    writeFileSync(join(dir, 'rollout-e.jsonl'), `${JSON.stringify({ payload: { id: '../../escape', cwd: proj } })}\n`);
    await waitFor(() => logs.filter((l) => l.startsWith('discovery: skipped')).length === 5, { what: 'five skip lines' });
    expect(binds).toEqual([]);
    const skipped = logs.filter((l) => l.startsWith('discovery: skipped')).sort();
    expect(skipped).toEqual([
      expect.stringMatching(/^discovery: skipped a compressed record .*rollout-a\.jsonl\.zst/),
      expect.stringMatching(/^discovery: skipped a compressed record .*rollout-b\.jsonl/),
      expect.stringMatching(/^discovery: skipped a record whose first line is too large .*rollout-c/),
      expect.stringMatching(/^discovery: skipped a record .*rollout-d.*"problem":"malformed"/),
      expect.stringMatching(/^discovery: skipped a record .*rollout-e.*"problem":"unsafeId"/),
    ]);
  });

  it('waits for a first line written in pieces', async () => {
    await track('A', proj);
    const id = randomUUID();
    const line = JSON.stringify({ type: 'session_meta', payload: { id, cwd: proj } });
    const path = join(home, '.codex/sessions/2026/01/04', `rollout-${id}.jsonl`);
    await agent('A').hold(path, line.slice(0, 25));
    await waitFor(() => logs.some((l) => l.startsWith('discovery: record not complete yet') && l.includes(path)), {
      what: `the half line read and held back ${logs.join('\n')}`,
    });
    expect(binds).toEqual([]);
    await agent('A').hold(path, `${line.slice(25)}\n`);
    await waitFor(() => binds.length === 1, { what: 'the bind once the line is complete' });
    expect(binds[0]!.conversationId).toBe(id);
  });

  it("watches a root that does not exist yet (the agent's first run)", async () => {
    agent('A');
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    const r = await writeRollout(proj, { by: agent('A') });
    // The whole tree appears at once; like Codex, the agent appends a line per turn, and a turn is
    // an event the watcher sees even if it missed the tree being made.
    await waitFor(async () => binds.length === 1 || (await agent('A').hold(r.path, '{"type":"turn"}\n'), false), {
      what: 'the bind below a root created after launch',
      interval: 200,
      // A watcher set up on a root made after launch can take a loaded run past the 10 s default.
      timeout: 30_000,
    });
    expect(binds[0]!.conversationId).toBe(r.id);
  });

  it('reads standalone json records', async () => {
    await track('A', proj, jsonSpec);
    mkdirSync(join(home, '.oc/session/global'), { recursive: true });
    await agent('A').hold(join(home, '.oc/session/global/ses_other.json'), JSON.stringify({ id: 'ses_other', directory: join(home, 'x') }));
    await agent('A').hold(join(home, '.oc/session/global/ses_mine.json'), JSON.stringify({ id: 'ses_mine', directory: proj, title: 't' }, null, 2));
    writeFileSync(join(home, '.oc/session/global/notes.txt'), 'ignored');
    await waitFor(() => binds.length === 1, { what: 'the json bind' });
    expect(binds[0]).toMatchObject({ sessionId: 'A', conversationId: 'ses_mine' });
  });

  it('keeps a warmed root open across sessions', async () => {
    await disc.warm(rollout);
    await disc.warm(rollout);
    for (const sid of ['A', 'B']) {
      const cwd = join(home, sid);
      mkdirSync(cwd);
      await track(sid, cwd);
      const r = await writeRollout(cwd, { by: agent(sid) });
      await waitFor(() => binds.some((b) => b.sessionId === sid && b.conversationId === r.id), { what: `${sid} bound` });
    }
    // Nobody waits now, yet the warmed watcher still reads new records.
    const late = await writeRollout(proj);
    await seen(late.id);
  });

  it('stops waiting when the session is disposed', async () => {
    const t = await track('A', proj);
    // B keeps the watcher open, so A's record is read: what is checked is that A no longer binds.
    await track('B', join(home, 'b'));
    t.dispose();
    const r = await writeRollout(proj, { by: agent('A') });
    await seen(r.id);
    expect(binds).toEqual([]);
  });
});

describe('ResumeDiscovery: a record written and closed', () => {
  const boundBy = (how: string) => logs.some((l) => l.startsWith('discovery: bound') && l.includes(`"by":"${how}"`));
  const waitingNote = (kind: string) =>
    waitFor(() => logs.some((l) => l.startsWith('discovery: a record nobody holds open') && l.includes(`"kind":"${kind}"`)), { what: `the ${kind} note` });

  it('binds the one new record of the folder when no other process of the agent runs there', async () => {
    outsider({ name: 'vim' }); // Another program in the folder changes nothing.
    outsider({ cwd: home }); // Nor the same agent in another folder.
    await track('A', proj, jsonSpec, { close: true });
    const path = join(home, '.oc/session/global/ses_only.json');
    await agent('A').hold(path, JSON.stringify({ id: 'ses_only', directory: proj }));
    await waitFor(() => binds.length === 1, { what: 'the bind of the closed record' });
    expect(binds).toEqual([{ sessionId: 'A', conversationId: 'ses_only', recordPath: path }]);
    expect(boundBy('only agent in the folder')).toBe(true);
  });

  it('two tabs in one folder do not bind by it: each waits for its hook or a record it holds', async () => {
    await track('A', proj, jsonSpec, { close: true });
    await track('B', proj, jsonSpec, { close: true });
    await agent('A').hold(join(home, '.oc/session/global/ses_a.json'), JSON.stringify({ id: 'ses_a', directory: proj }));
    await seen('ses_a');
    await waitingNote('neighbours');
    expect(binds).toEqual([]);
    // A's hook names its record; B's stays waiting even now that it is alone in the folder:
    // A's agent still runs there.
    disc.settle('A', 'ses_a');
    await agent('B').hold(join(home, '.oc/session/global/ses_b.json'), JSON.stringify({ id: 'ses_b', directory: proj }));
    await seen('ses_b');
    await waitingNote('foreign');
    expect(binds).toEqual([]);
    expect(disc.isPending('B')).toBe(true);
  });

  it('never binds a record another process of the agent in the folder wrote, even once it has gone', async () => {
    const outside = outsider({ close: true });
    await track('A', proj, jsonSpec, { close: true });
    const path = join(home, '.oc/session/global/ses_theirs.json');
    await outside.hold(path, JSON.stringify({ id: 'ses_theirs', directory: proj }));
    await seen('ses_theirs');
    await waitingNote('foreign');
    // The other terminal's agent quits; the records are looked at again (a hook settling another
    // session does that at once, as a change to a record does): still not A's.
    outside.kill();
    await waitFor(
      () => {
        try {
          process.kill(outside.pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'the outside agent gone' },
    );
    disc.settle('another-tab', 'ses_unrelated');
    expect(binds).toEqual([]);
    // A's own record appears now, with no other agent in the folder: but there are two new
    // records in the folder, and which is A's cannot be told, so A waits for its hook.
    await agent('A').hold(join(home, '.oc/session/global/ses_mine.json'), JSON.stringify({ id: 'ses_mine', directory: proj }));
    await seen('ses_mine');
    expect(binds).toEqual([]); // Two new records in the folder now: which is A's is not known.
    expect(disc.isPending('A')).toBe(true);
  });

  it('never binds a record that a process in the folder outside the tab holds open, whatever its name', async () => {
    const other = outsider({ name: 'helper' });
    await track('A', proj, jsonSpec, { close: true });
    await other.hold(join(home, '.oc/session/global/ses_held.json'), JSON.stringify({ id: 'ses_held', directory: proj }));
    await seen('ses_held');
    await waitingNote('foreign');
    expect(binds).toEqual([]);
  });

  it('binds once the agent pid is known, with no later event from the record', async () => {
    hiddenPids.add('A');
    await track('A', proj, jsonSpec, { close: true });
    await agent('A').hold(join(home, '.oc/session/global/ses_late.json'), JSON.stringify({ id: 'ses_late', directory: proj }));
    await seen('ses_late');
    await waitingNote('cannotTell');
    expect(binds).toEqual([]);
    hiddenPids.delete('A');
    await waitFor(() => binds.length === 1, { what: 'the bind once the pid is known' });
    expect(binds[0]!.conversationId).toBe('ses_late');
  });
});
