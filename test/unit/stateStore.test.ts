// The durable session state (src/app/host/state/stateStore.ts) on real files in a temporary folder:
// round trip, debounced and atomic writes, flush on dispose, migration, damaged files.
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StateStore, STATE_MIGRATIONS, type StateStoreOptions } from '../../src/app/host/state/stateStore';
import { transpileForChild } from '../helpers/transpileForChild';
import { waitFor } from '../helpers/waitFor';

let dir: string;
let file: string;
const stores: StateStore[] = [];
const fixedNow = () => new Date('2026-03-04T05:06:07.089Z');

function open(opts: Partial<StateStoreOptions> = {}) {
  const opened = StateStore.open({ file, writeDelayMs: 20, now: fixedNow, ...opts });
  stores.push(opened.store);
  return opened;
}
const onDisk = () => JSON.parse(readFileSync(file, 'utf8'));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'termio-state-'));
  file = join(dir, 'state', 'sessions.json');
});
afterEach(() => {
  for (const s of stores.splice(0)) s.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function populate(store: StateStore) {
  store.addWindow('w1');
  store.addSession({ id: 's1', agentId: 'claude', cwd: '/p/one' }, { windowId: 'w1' });
  store.addSession({ id: 's2', agentId: 'codex', cwd: '/p/two', bypass: true }, { windowId: 'w1' });
  store.addSession({ id: 's0', agentId: 'grok', cwd: '/p/zero' }, { windowId: 'w1', index: 0 });
  store.addSession({ id: 's3', agentId: 'claude', cwd: '/p/three' }, { windowId: 'w2' });
  store.updateSession('s1', { title: 'Fix the parser' });
  store.bindConversation('s2', 'conv-2', 'discovered');
}

describe('StateStore', () => {
  it('starts empty without a file and restores what it wrote', () => {
    const { store, problem, warnings } = open();
    expect(problem).toBeNull();
    expect(warnings).toEqual([]);
    expect(store.state.sessions).toEqual([]);
    populate(store);
    store.dispose();

    const again = open();
    expect(again.problem).toBeNull();
    expect(again.store.state.windows).toEqual([
      { id: 'w1', tabs: ['s0', 's1', 's2'], activeTab: null },
      { id: 'w2', tabs: ['s3'], activeTab: null },
    ]);
    expect(again.store.getSession('s1')).toEqual({
      id: 's1',
      agentId: 'claude',
      cwd: '/p/one',
      title: 'Fix the parser',
      conversationId: null,
      family: null,
      bypass: false,
      createdAt: '2026-03-04T05:06:07.089Z',
    });
    expect(again.store.getSession('s2')).toMatchObject({ conversationId: 'conv-2', family: 'discovered', bypass: true });
    expect(onDisk()).toMatchObject({ version: 1, savedAt: '2026-03-04T05:06:07.089Z' });
  });

  it('coalesces changes into one delayed write, and writes bindings at once', async () => {
    const { store } = open({ writeDelayMs: 100 });
    store.addWindow('w1');
    for (let i = 0; i < 10; i++) store.addSession({ id: `s${i}`, agentId: 'claude', cwd: '/p' }, { windowId: 'w1' });
    expect(existsSync(file)).toBe(false);
    await waitFor(() => store.writes === 1, { what: 'the delayed write' });
    expect(onDisk().sessions).toHaveLength(10);
    store.bindConversation('s3', 'c-3', 'pinned');
    expect(store.writes).toBe(2);
    expect(onDisk().sessions[3]).toMatchObject({ conversationId: 'c-3', family: 'pinned' });
  });

  it('writes a lazy change later, or with a sooner change', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { store } = open({ writeDelayMs: 20, lazyWriteDelayMs: 5_000 });
      store.addWindow('w1');
      store.addSession({ id: 's1', agentId: 'claude', cwd: '/p' }, { windowId: 'w1' }, { immediate: true });
      store.updateSession('s1', { title: '⠋ Working' }, { lazy: true });
      vi.advanceTimersByTime(4_000);
      expect(store.writes).toBe(1);
      vi.advanceTimersByTime(1_000);
      expect(store.writes).toBe(2);
      expect(onDisk().sessions[0].title).toBe('⠋ Working');
      // A sooner change takes the lazy one along.
      store.updateSession('s1', { title: '⠙ Working' }, { lazy: true });
      store.addWindow('w2');
      vi.advanceTimersByTime(20);
      expect(store.writes).toBe(3);
      expect(onDisk().sessions[0].title).toBe('⠙ Working');
    } finally {
      vi.useRealTimers();
    }
  });

  it('retries a failed write by itself once the disk takes it again, with no further change', async () => {
    // The folder the file goes in is blocked by a plain file (as a full disk, the write fails).
    const blocked = join(dir, 'blocked');
    const logged: string[] = [];
    const logger = { debug: () => undefined, info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
    const opened = StateStore.open({ file: join(blocked, 'sessions.json'), writeDelayMs: 5, retryFirstMs: 20, now: fixedNow, logger });
    stores.push(opened.store);
    rmSync(blocked, { recursive: true, force: true });
    writeFileSync(blocked, 'not a folder');
    opened.store.addWindow('w1');
    opened.store.addSession({ id: 's1', agentId: 'claude', cwd: '/p' }, { windowId: 'w1' });
    await waitFor(() => logged.some((l) => l.startsWith('state: write failed')), { what: 'the failed write' });
    expect(opened.store.writes).toBe(0);
    rmSync(blocked);
    await waitFor(() => opened.store.writes === 1, { what: 'the retried write' });
    expect(JSON.parse(readFileSync(join(blocked, 'sessions.json'), 'utf8')).sessions).toHaveLength(1);
    expect(logged.filter((l) => l.startsWith('state: write failed'))).toHaveLength(1);
    expect(logged).toContain('state: written again after failed writes');
  });

  it('flushes a pending change on dispose', () => {
    const { store } = open({ writeDelayMs: 60_000 });
    populate(store);
    store.updateSession('s3', { title: 'last words' });
    const before = store.writes;
    store.dispose();
    expect(store.writes).toBe(before + 1);
    expect(onDisk().sessions.find((s: { id: string }) => s.id === 's3').title).toBe('last words');
    expect(() => store.updateSession('s3', { title: 'x' })).toThrow(/after dispose/);
  });

  it('replaces the file by rename (new inode), leaves no temp file and keeps it private', () => {
    const { store } = open();
    populate(store);
    store.flush();
    const ino1 = statSync(file).ino;
    store.updateSession('s1', { title: 'renamed' });
    store.flush();
    expect(statSync(file).ino).not.toBe(ino1);
    expect(readdirSync(join(dir, 'state'))).toEqual(['sessions.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('removes closed sessions and their tabs; moves tabs between windows', () => {
    const { store } = open();
    populate(store);
    store.update((s) => {
      s.windows[0]!.activeTab = 's1';
    });
    store.removeSession('s1');
    store.moveTab('s3', 'w1', 1);
    store.dispose();
    const again = open().store;
    expect(again.state.windows).toEqual([
      { id: 'w1', tabs: ['s0', 's3', 's2'], activeTab: null },
      { id: 'w2', tabs: [], activeTab: null },
    ]);
    expect(again.getSession('s1')).toBeUndefined();
    again.removeWindow('w1');
    expect(again.state.sessions).toEqual([]);
  });

  it('removes temp files left by a dead writer', () => {
    mkdirSync(join(dir, 'state'));
    writeFileSync(join(dir, 'state', 'sessions.json.tmp-999999999'), '{"half');
    open();
    expect(readdirSync(join(dir, 'state'))).toEqual([]);
  });
});

describe('damaged files', () => {
  const write = (text: string) => {
    mkdirSync(join(dir, 'state'), { recursive: true });
    writeFileSync(file, text);
  };
  const aside = () => readdirSync(join(dir, 'state')).filter((n) => n !== 'sessions.json');

  it.each([
    ['truncated JSON', '{"version":1,"windows":[', /is not valid JSON/],
    ['not an object', '[1,2,3]', /does not hold a JSON object/],
    ['a bad version', '{"version":"one"}', /invalid version "one"/],
    ['a wrong shape', '{"version":1,"windows":{},"sessions":[]}', /does not have the shape of a Termio state .*windows/],
    ['binary junk', '\u0000\u0001\u00ff', /is not valid JSON/],
  ])('moves %s aside, reports it and starts empty', (_what, text, message) => {
    write(text);
    const { store, problem } = open();
    expect(problem).toMatchObject({ kind: 'stateCorrupt', file, movedTo: `${file}.corrupt-2026-03-04T05-06-07-089Z`, message: expect.stringMatching(message) });
    expect(problem!.message).toMatch(/moved to sessions\.json\.corrupt-2026-03-04T05-06-07-089Z and Termio started with no saved sessions/);
    expect(readFileSync(problem!.movedTo!, 'utf8')).toBe(text);
    expect(existsSync(file)).toBe(false);
    expect(store.state.sessions).toEqual([]);
    store.addWindow('w');
    store.flush();
    expect(onDisk().windows).toEqual([{ id: 'w', tabs: [], activeTab: null }]);
  });

  it('keeps a file from a newer Termio aside under its version', () => {
    write('{"version":7,"windows":[],"sessions":[],"hologram":true}');
    const { problem } = open();
    expect(problem).toMatchObject({ kind: 'stateTooNew', movedTo: `${file}.v7-2026-03-04T05-06-07-089Z` });
    expect(problem!.message).toMatch(/written by a newer Termio \(state version 7/);
  });

  it('moves a directory in its place aside', () => {
    mkdirSync(file, { recursive: true });
    const { problem } = open();
    expect(problem).toMatchObject({ kind: 'stateUnreadable', message: expect.stringMatching(/is not a regular file/) });
    expect(aside()).toEqual(['sessions.json.corrupt-2026-03-04T05-06-07-089Z']);
  });

  // A read-only folder refuses the rename. Root ignores modes, so as root (CI) the store opens in
  // a child without the capabilities that override them (util-linux's setpriv), the way the
  // catalog test reads an unreadable manifest.
  it('never writes over a file it could neither read nor move', () => {
    mkdirSync(file, { recursive: true });
    writeFileSync(join(file, 'kept'), 'x');
    chmodSync(join(dir, 'state'), 0o500);
    const code = transpileForChild([
      'src/app/host/state/stateStore.ts',
      'src/app/host/state/stateFile.ts',
      'src/app/services/atomicWrite.ts',
      'src/app/services/log.ts',
      'src/app/services/processes.ts',
    ]);
    try {
      const script = `const { StateStore } = require(${JSON.stringify(code.path('src/app/host/state/stateStore.ts'))});
        const { store, problem } = StateStore.open({ file: ${JSON.stringify(file)}, writeDelayMs: 0 });
        store.addWindow('w');
        store.flush();
        process.stdout.write(JSON.stringify({ problem, readOnly: store.readOnly }));`;
      const node = [process.execPath, '-e', script];
      const argv = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...node] : node;
      const out = JSON.parse(execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8' })) as { problem: unknown; readOnly: boolean };
      expect(out.problem).toMatchObject({ movedTo: null, message: expect.stringMatching(/will not write over it/) });
      expect(out.readOnly).toBe(true);
      // Nothing was written over it: the folder in the file's place is as it was.
      expect(readdirSync(file)).toEqual(['kept']);
    } finally {
      chmodSync(join(dir, 'state'), 0o700);
      code.dispose();
    }
  });

  it('keeps unreadable entries and unknown fields, repairs references, and reports each', () => {
    write(
      JSON.stringify({
        version: 1,
        fromTheFuture: { x: 1 },
        windows: [{ id: 'w1', tabs: ['a', 'ghost', 'a'], activeTab: 'ghost', size: [800, 600] }, 'not a window'],
        sessions: [
          { id: 'a', agentId: 'claude', cwd: '/p', createdAt: '2026-01-01T00:00:00Z', colour: 'teal' },
          { id: 'b', agentId: 'codex', createdAt: '2026-01-01T00:00:00Z' },
          { id: 'c', agentId: 'grok', cwd: '/q', createdAt: '2026-01-01T00:00:00Z', conversationId: 'k', family: 'pinned' },
          { id: 'a', agentId: 'dup', cwd: '/d', createdAt: '2026-01-01T00:00:00Z' },
        ],
      }),
    );
    const { store, problem, warnings } = open();
    expect(problem).toBeNull();
    expect(warnings).toEqual([
      expect.stringMatching(/^session "b" could not be read and was not restored \(kept in the file\): .*cwd/),
      'session "a" appears twice; the second entry was not restored (kept in the file)',
      'a tab named session "ghost", which is not in the file; the tab was removed',
      'session "a" was listed in two places; kept the first',
      expect.stringMatching(/^a window entry could not be read/),
      'session "c" was in no window; it was added to window "w1"',
    ]);
    expect(store.state.windows).toEqual([{ id: 'w1', tabs: ['a', 'c'], activeTab: null, size: [800, 600] }]);
    expect(store.getSession('a')).toMatchObject({ colour: 'teal', title: '', bypass: false });
    store.flush();
    const disk = onDisk();
    expect(disk.fromTheFuture).toEqual({ x: 1 });
    expect(disk.unreadable.map((u: { entry: { id: string } }) => u.entry.id)).toEqual(['b', 'a']);
    expect(disk.sessions.map((s: { id: string }) => s.id)).toEqual(['a', 'c']);
    // A second start finds nothing new to complain about: the unreadable entries stay put.
    store.dispose();
    const again = open();
    expect(again.warnings).toEqual([]);
    expect(again.store.state.unreadable).toHaveLength(2);
  });

  it('migrates a version 0 file and writes it back as version 1', async () => {
    write(
      JSON.stringify({
        tabs: [
          { agent: 'claude', cwd: '/p/a', title: 'one', conversation: 'c-1', created: '2025-12-01T00:00:00Z' },
          { agent: 'codex', cwd: '/p/b', yolo: true, pinnedTo: 'left' },
        ],
      }),
    );
    const { store, problem, warnings } = open();
    expect(problem).toBeNull();
    expect(warnings).toEqual([]);
    expect(store.state.windows).toEqual([{ id: 'window-1', tabs: ['migrated-1', 'migrated-2'], activeTab: null }]);
    expect(store.state.sessions).toEqual([
      { id: 'migrated-1', agentId: 'claude', cwd: '/p/a', title: 'one', conversationId: 'c-1', family: null, bypass: false, createdAt: '2025-12-01T00:00:00Z' },
      {
        id: 'migrated-2',
        agentId: 'codex',
        cwd: '/p/b',
        title: '',
        conversationId: null,
        family: null,
        bypass: true,
        createdAt: '1970-01-01T00:00:00.000Z',
        pinnedTo: 'left',
      },
    ]);
    await waitFor(() => store.writes === 1, { what: 'the migrated file written back' });
    expect(onDisk().version).toBe(1);
    expect(Object.keys(STATE_MIGRATIONS)).toEqual(['0']);
  });

  it('reports a migration that throws as a corrupt file', () => {
    write(JSON.stringify({ tabs: 'x' }));
    const orig = STATE_MIGRATIONS[0]!;
    STATE_MIGRATIONS[0] = () => {
      throw new Error('boom');
    };
    try {
      expect(open().problem).toMatchObject({ kind: 'stateCorrupt', message: expect.stringMatching(/could not be migrated from version 0 \(boom\)/) });
    } finally {
      STATE_MIGRATIONS[0] = orig;
    }
  });
});
