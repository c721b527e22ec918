// SessionRegistry on its own, with real /bin/sh sessions: events, state bookkeeping, titles, failures as values.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionRegistry, type SessionRecord, type StateChange } from '../../src/app/host/sessions/sessionRegistry';
import { testShell } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';
import { waitForExit } from '../helpers/processes';

let home: string;
let registry: SessionRegistry;
let clock = 1_000;
beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'treg-')));
  clock = 1_000;
  registry = new SessionRegistry({ spawner: testShell(), defaultCwd: home, now: () => clock });
});
afterEach(() => {
  registry.dispose();
  rmSync(home, { recursive: true, force: true });
});

async function spawnOk(req: Parameters<SessionRegistry['spawn']>[0] = {}): Promise<SessionRecord> {
  const r = await registry.spawn(req);
  if (!r.ok) throw new Error(r.message);
  return r.record;
}

describe('SessionRegistry', () => {
  it('fires added, state (only on a real change), focus and removed; keeps creation order', async () => {
    const log: string[] = [];
    registry.onAdded((r) => log.push(`added ${r.title}`));
    registry.onStateChanged((c: StateChange) => log.push(`state ${c.record.title} ${c.previous}→${c.record.state} (${c.why})`));
    registry.onFocusRequested((r) => log.push(`focus ${r.title}`));
    registry.onRemoved((r) => log.push(`removed ${r.title}`));
    const a = await spawnOk({ title: 'a' });
    const b = await spawnOk({ title: 'b' });
    expect(registry.list().map((r) => r.title)).toEqual(['a', 'b']);
    expect(a).toMatchObject({ state: 'idle', stateWhy: 'started', stateSince: 1_000, createdAt: 1_000, agentId: null, cwd: home, bypass: false });
    // Created in the same millisecond, b is still the later one: a new host adopting them lists them by createdAt.
    expect(b.createdAt).toBe(1_001);
    clock = 5_000;
    expect(registry.setState(a.id, 'working', 'hook PreToolUse')).toBe(true);
    clock = 6_000;
    expect(registry.setState(a.id, 'working', 'hook PostToolUse')).toBe(true);
    expect(a).toMatchObject({ state: 'working', stateSince: 5_000, stateWhy: 'hook PostToolUse' });
    expect(registry.setState('nope', 'done', 'x')).toBe(false);
    expect(registry.requestFocus(b.id)).toBe(true);
    expect(registry.close(a.id)).toBe(true);
    expect(registry.close(a.id)).toBe(false);
    expect(log).toEqual(['added a', 'added b', 'state a idle→working (hook PreToolUse)', 'focus b', 'removed a']);
    expect(registry.list().map((r) => r.id)).toEqual([b.id]);
  });

  it('shows the live terminal title unless a name was given, and reports exits as changes', async () => {
    const r = await spawnOk();
    const changes: string[] = [];
    registry.onChanged((c) => changes.push(c.title));
    r.session.write("printf '\\033]0;from the shell\\007'\r");
    await waitFor(() => r.title === 'from the shell', { what: 'the OSC title' });
    registry.rename(r.id, 'named');
    expect(r.title).toBe('named');
    registry.rename(r.id, '');
    expect(r.title).toBe('from the shell');
    r.session.write('exit 0\r');
    await waitFor(() => r.session.exited, { what: 'the exit' });
    await waitFor(() => changes.length >= 4, { what: 'the exit change' });
    expect(changes).toEqual(['from the shell', 'named', 'from the shell', 'from the shell']);
    expect(registry.get(r.id)).toBe(r);
  });

  it('returns spawn failures as values', async () => {
    expect(await registry.spawn({ cwd: 'relative' })).toMatchObject({ ok: false, code: 'badDirectory' });
    expect(await registry.spawn({ cwd: join(home, 'missing') })).toMatchObject({
      ok: false,
      code: 'badDirectory',
      message: `'${join(home, 'missing')}' is not an existing folder`,
    });
    expect(await registry.spawn({ agent: 'codex' })).toMatchObject({ ok: false, code: 'spawnFailed' });
    const missingBinary = new SessionRegistry({
      spawner: (req) => ({ kind: 'launchError', message: `command not found: nosuch (${req.id})`, command: 'nosuch' }),
      defaultCwd: home,
    });
    expect(await missingBinary.spawn({})).toMatchObject({ ok: false, code: 'spawnFailed', message: expect.stringContaining('command not found: nosuch') });
    expect(registry.size).toBe(0);
  });

  it('passes agent, bypass, title and a fresh id to the spawner and uses that id', async () => {
    const seen: unknown[] = [];
    const inner = testShell();
    const reg = new SessionRegistry({ defaultCwd: home, spawner: (req) => (seen.push(req), inner({ ...req, agent: undefined })) });
    const r = await reg.spawn({ agent: 'claude', bypass: true, title: 't' });
    if (!r.ok) throw new Error(r.message);
    expect(seen).toEqual([{ id: r.record.id, agent: 'claude', cwd: home, bypass: true, title: 't' }]);
    expect(r.record).toMatchObject({ agentId: 'claude', bypass: true, title: 't' });
    expect(r.record.id).toMatch(/^[0-9a-f-]{36}$/);
    reg.dispose();
    expect(reg.size).toBe(0);
  });

  it('dispose kills every session', async () => {
    const a = await spawnOk();
    const b = await spawnOk();
    registry.dispose();
    expect(registry.size).toBe(0);
    for (const pid of [a.session.pid, b.session.pid]) await waitForExit(pid);
  });
});
