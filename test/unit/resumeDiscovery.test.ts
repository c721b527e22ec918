// Discovered-record binding (src/app/host/resumeDiscovery.ts) on real folders and a real
// watcher: bind once when unambiguous, never when two sessions could own a record, never an old,
// foreign, bound or unreadable record.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ResumeDiscovery, type DiscoveryBinding } from '../../src/app/host/resumeDiscovery';
import type { Logger } from '../../src/app/host/log';
import type { DiscoverInput } from '../../src/protocol/resumePlan';
import { waitFor } from '../helpers/waitFor';

const rollout: DiscoverInput = { root: '~/.codex/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' };
const jsonSpec: DiscoverInput = { root: '~/.oc/session', format: 'json', id: 'id', cwd: 'directory' };

let home: string;
let proj: string;
let binds: DiscoveryBinding[];
let logs: string[];
let bound: Map<string, string>;
let disc: ResumeDiscovery;

const logger: Logger = {
  debug: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`), info: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
  warn: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`), error: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`),
};

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-disc-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  binds = [];
  logs = [];
  bound = new Map();
  disc = new ResumeDiscovery({ home, logger, boundSessionOf: (id) => bound.get(id) ?? null, onBind: (b) => binds.push(b) });
});
afterEach(() => {
  disc.dispose();
  rmSync(home, { recursive: true, force: true });
});

function writeRollout(cwd: string, id = randomUUID(), day = '2026/01/02'): { id: string; path: string } {
  const dir = join(home, '.codex/sessions', day);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-01-02T10-00-00-${id}.jsonl`);
  writeFileSync(path, `${JSON.stringify({ type: 'session_meta', payload: { id, cwd } })}\n{"type":"x"}\n`);
  return { id, path };
}
/** Waits until the watcher has read the record of each id (its 'new record' log line). */
async function seen(...ids: string[]) {
  await waitFor(() => ids.every((id) => logs.some((l) => l.startsWith('discovery: new record') && l.includes(id))), { what: `the watcher to read ${ids.join(', ')}` });
}

describe('ResumeDiscovery', () => {
  it('binds the one new record whose cwd is the session cwd, once', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    // B waits in another folder and keeps the watcher open after A is bound.
    await disc.track({ sessionId: 'B', cwd: join(home, 'b'), discover: rollout });
    writeRollout(join(home, 'other'));
    const r = writeRollout(proj);
    await waitFor(() => binds.length === 1, { what: 'the bind' });
    expect(binds).toEqual([{ sessionId: 'A', conversationId: r.id, recordPath: r.path }]);
    expect(disc.isPending('A')).toBe(false);
    const later = writeRollout(proj);
    await seen(later.id);
    expect(binds).toHaveLength(1);
  });

  it('matches cwd after resolving symlinks on either side', async () => {
    const link = join(home, 'link');
    symlinkSync(proj, link);
    await disc.track({ sessionId: 'A', cwd: link, discover: rollout });
    const r = writeRollout(proj);
    await waitFor(() => binds.length === 1, { what: 'the bind through a symlink' });
    expect(binds[0]!.conversationId).toBe(r.id);
  });

  it('ignores records that existed before the launch and old files moved in', async () => {
    writeRollout(proj);
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    const id = randomUUID();
    const old = join(home, 'old.jsonl');
    writeFileSync(old, `${JSON.stringify({ type: 'session_meta', payload: { id, cwd: proj } })}\n`);
    const past = new Date(Date.now() - 3600_000);
    utimesSync(old, past, past);
    const target = join(home, '.codex/sessions/2026/01/02/rollout-old.jsonl');
    mkdirSync(join(target, '..'), { recursive: true });
    renameSync(old, target);
    await seen(id);
    expect(binds).toEqual([]);
    expect(disc.isPending('A')).toBe(true);
  });

  it('binds nothing when two sessions in one folder could own the records, until a hook settles one', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    await disc.track({ sessionId: 'B', cwd: proj, discover: rollout });
    const ra = writeRollout(proj);
    const rb = writeRollout(proj);
    await seen(ra.id, rb.id);
    expect(binds).toEqual([]);
    // A's hook reports its id: B's only remaining candidate is then unambiguous.
    disc.settle('A', ra.id);
    expect(binds).toEqual([{ sessionId: 'B', conversationId: rb.id, recordPath: rb.path }]);
  });

  it('keeps a session waiting when two new records name its folder', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    await disc.track({ sessionId: 'B', cwd: join(home, 'b'), discover: rollout });
    // Both written before either is read: one batch of watcher events.
    const id1 = randomUUID();
    const id2 = randomUUID();
    const dir = join(home, '.codex/sessions/2026/01/05');
    mkdirSync(dir, { recursive: true });
    const tmp1 = join(home, 'r1');
    const tmp2 = join(home, 'r2');
    writeFileSync(tmp1, `${JSON.stringify({ payload: { id: id1, cwd: proj } })}\n`);
    writeFileSync(tmp2, `${JSON.stringify({ payload: { id: id2, cwd: proj } })}\n`);
    renameSync(tmp1, join(dir, 'rollout-1.jsonl'));
    renameSync(tmp2, join(dir, 'rollout-2.jsonl'));
    await seen(id1, id2);
    // If the first was read and bound before the second appeared, that bind was unambiguous when
    // made; otherwise nothing binds.
    expect(binds.length).toBeLessThanOrEqual(1);
    if (binds.length === 0) expect(disc.isPending('A')).toBe(true);
  });

  it('never binds a record already bound to another session', async () => {
    const taken = randomUUID();
    bound.set(taken, 'other-session');
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    writeRollout(proj, taken);
    await seen(taken);
    expect(binds).toEqual([]);
    const r = writeRollout(proj);
    await waitFor(() => binds.length === 1, { what: 'the unbound record' });
    expect(binds[0]!.conversationId).toBe(r.id);
  });

  it('skips compressed, too large, malformed and unsafe records with a log line', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
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
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    const id = randomUUID();
    const line = JSON.stringify({ type: 'session_meta', payload: { id, cwd: proj } });
    const dir = join(home, '.codex/sessions/2026/01/04');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `rollout-${id}.jsonl`);
    writeFileSync(path, line.slice(0, 25));
    // The half line is read and held back; nothing to wait on but the watcher's own latency.
    await new Promise((r) => setTimeout(r, 150));
    expect(binds).toEqual([]);
    appendFileSync(path, `${line.slice(25)}\n`);
    await waitFor(() => binds.length === 1, { what: 'the bind once the line is complete' });
    expect(binds[0]!.conversationId).toBe(id);
  });

  it('watches a root that does not exist yet (the agent\'s first run)', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    const r = writeRollout(proj);
    await waitFor(() => binds.length === 1, { what: 'the bind below a root created after launch' });
    expect(binds[0]!.conversationId).toBe(r.id);
  });

  it('reads standalone json records', async () => {
    await disc.track({ sessionId: 'A', cwd: proj, discover: jsonSpec });
    mkdirSync(join(home, '.oc/session/global'), { recursive: true });
    writeFileSync(join(home, '.oc/session/global/ses_other.json'), JSON.stringify({ id: 'ses_other', directory: join(home, 'x') }));
    writeFileSync(join(home, '.oc/session/global/ses_mine.json'), JSON.stringify({ id: 'ses_mine', directory: proj, title: 't' }, null, 2));
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
      await disc.track({ sessionId: sid, cwd, discover: rollout });
      const r = writeRollout(cwd);
      await waitFor(() => binds.some((b) => b.sessionId === sid && b.conversationId === r.id), { what: `${sid} bound` });
    }
    // Nobody waits now, yet the warmed watcher still reads new records.
    const late = writeRollout(proj);
    await seen(late.id);
  });

  it('stops waiting when the session is disposed', async () => {
    const t = await disc.track({ sessionId: 'A', cwd: proj, discover: rollout });
    t.dispose();
    writeRollout(proj);
    await new Promise((r) => setTimeout(r, 200)); // nothing to wait for: the watcher is closed
    expect(binds).toEqual([]);
  });
});
