// The session list the companion sends pages: names (title, else the agent's name, else the
// command), folders labelled as the sidebar labels them, each agent's name and icon once, and a
// change in the registry reaching a connected page. A real registry with real shells, a real
// server; the agent catalog is the one thing stood in for (a lookup over the bundled icons).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startCompanion, type Companion, type CompanionSettings } from '../../../src/app/host/companion/companion';
import { createLogger } from '../../../src/app/services/log';
import { SessionRegistry, shellSpawner } from '../../../src/app/host/sessions/sessionRegistry';
import { Emitter } from '../../../src/protocol/events';
import { Session } from '../../../src/terminal/node';
import type { CompanionServerMessage } from '../../../src/protocol/companion';
import { AUTH_SUBPROTOCOL_PREFIX, COMPANION_SUBPROTOCOL } from '../../../src/protocol/companionWire';
import { repoRoot } from '../../helpers/companionHost';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/waitFor';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(extra: { heartbeatMs?: number } = {}): Promise<{ home: string; registry: SessionRegistry; companion: Companion; port: number }> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'tcomplist-')));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const registry = new SessionRegistry({ spawner: shellSpawner(['/bin/sh'], { PS1: '$ ', ENV: '' }), defaultCwd: home });
  cleanups.push(() => registry.dispose());
  const port = await freePort();
  let settings: CompanionSettings = { enabled: true, port, network: 'loopback', allowedHosts: [] };
  const changed = new Emitter<void>();
  const companion = await startCompanion({
    registry,
    feedFor: () => {
      throw new Error('this test types nothing');
    },
    agentInfo: (id) => (id === 'claude' ? { name: 'Claude Code', iconFile: join(repoRoot, 'assets', 'icons', 'claude.svg') } : undefined),
    settings: { get: () => settings, set: (p) => ((settings = { ...settings, ...p }), changed.fire()), onChange: changed.event },
    termioHome: join(home, '.termio'),
    userHome: home,
    logger: createLogger(null),
    ...extra,
  });
  cleanups.push(() => companion.dispose());
  return { home, registry, companion, port };
}

it('names sessions, labels folders like the sidebar, and sends each agent once with its icon', async () => {
  const { home, registry, companion } = await setUp();
  for (const d of ['work/api', 'play/api', 'web']) mkdirSync(join(home, d), { recursive: true });
  const a = registry.add(spawnShell(join(home, 'work', 'api')), { agentId: 'claude' });
  const b = registry.add(spawnShell(join(home, 'play', 'api')), { agentId: 'claude', title: 'fix the build' });
  const c = registry.add(spawnShell(join(home, 'web')));
  const msg = companion.sessionsMessage();
  expect(msg.sessions.map((s) => [s.id, s.name, s.folder, s.agentId])).toEqual([
    [a.id, 'Claude Code', 'work/api', 'claude'],
    [b.id, 'fix the build', 'play/api', 'claude'],
    [c.id, 'sh', 'web', null],
  ]);
  expect(Object.keys(msg.agents)).toEqual(['claude']);
  expect(msg.agents.claude).toEqual({ name: 'Claude Code', iconSvg: readFileSync(join(repoRoot, 'assets', 'icons', 'claude.svg'), 'utf8') });
});

it('tells a connected page about every change', async () => {
  const { home, registry, companion, port } = await setUp();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, [COMPANION_SUBPROTOCOL, `${AUTH_SUBPROTOCOL_PREFIX}${companion.token.current}`], {
    origin: `http://127.0.0.1:${port}`,
  });
  cleanups.push(() => ws.terminate());
  const lists: Array<Extract<CompanionServerMessage, { t: 'sessions' }>> = [];
  ws.on('message', (d: Buffer, binary) => {
    const m = binary ? null : (JSON.parse(d.toString()) as CompanionServerMessage);
    if (m?.t === 'sessions') lists.push(m);
  });
  await waitFor(() => lists.length === 1, { what: 'the first list' });
  const r = registry.add(spawnShell(home));
  await waitFor(() => lists.at(-1)?.sessions.length === 1, { what: 'the added session' });
  registry.setState(r.id, 'attention', 'test');
  await waitFor(() => lists.at(-1)?.sessions[0]?.state === 'attention', { what: 'the state' });
  expect(lists.at(-1)?.sessions[0]?.failure).toBeUndefined();
  // The same state, now with the failure it stopped on: the page shows the reason.
  registry.setState(r.id, 'attention', 'hooks: StopFailure', { kind: 'auth', reason: 'API error 401: log in again' });
  await waitFor(() => lists.at(-1)?.sessions[0]?.failure === 'API error 401: log in again', { what: 'the failure' });
  registry.rename(r.id, 'renamed');
  await waitFor(() => lists.at(-1)?.sessions[0]?.name === 'renamed', { what: 'the rename' });
  registry.close(r.id);
  await waitFor(() => lists.at(-1)?.sessions.length === 0, { what: 'the removal' });
  expect(companion.status().pages).toBe(1);
});

it('drops a page that stops answering pings (a phone that slept), and keeps one that answers', async () => {
  const { companion, port } = await setUp({ heartbeatMs: 150 });
  const open = async (autoPong: boolean): Promise<{ ws: WebSocket; closed: () => boolean }> => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, [COMPANION_SUBPROTOCOL, `${AUTH_SUBPROTOCOL_PREFIX}${companion.token.current}`], {
      origin: `http://127.0.0.1:${port}`,
      autoPong,
    });
    cleanups.push(() => ws.terminate());
    let closed = false;
    ws.on('close', () => (closed = true));
    await new Promise((r) => ws.once('open', r));
    return { ws, closed: () => closed };
  };
  const asleep = await open(false);
  const awake = await open(true);
  expect(companion.status().pages).toBe(2);
  await waitFor(() => asleep.closed(), { what: 'the silent page to be dropped' });
  expect(awake.closed()).toBe(false);
  expect(companion.status().pages).toBe(1);
});

function spawnShell(cwd: string): Session {
  const s = Session.spawn({ cwd, argv: ['/bin/sh'], env: { PS1: '$ ', ENV: '' } });
  if (!(s instanceof Session)) throw new Error(s.message);
  return s;
}
