// Exact resume through the real app: sessions of a pinned-id agent and a discovered-id agent
// (fakes that keep their stores like the real CLIs) plus a plain shell; quit; start again → each
// tab comes back in its folder and continues its own conversation, checked by the argv each fake
// received and the record it continued. A closed tab stays closed.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, listSessions, repoRoot, useDesktop } from './harness';

interface Info {
  id: string;
  agentId: string | null;
  cwd: string;
}
interface AgentLog {
  agent: string;
  event: string;
  termioSession: string | null;
  argv?: string[];
  id?: string;
}

const fakes = join(repoRoot, 'test', 'fakes');

function writeManifests(termioHome: string): void {
  const dir = join(termioHome, 'config', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'fake-pinned.json'),
    JSON.stringify({
      id: 'fake-pinned',
      name: 'Fake Pinned',
      command: join(fakes, 'fakePinnedAgent.mjs'),
      resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.fakepinned/sessions', storeMatch: 'file:{id}.jsonl' },
    }),
  );
  writeFileSync(
    join(dir, 'fake-codex.json'),
    JSON.stringify({
      id: 'fake-codex',
      name: 'Fake Codex',
      command: join(fakes, 'fakeDiscoveredAgent.mjs'),
      resume: { resume: 'resume {id}', discover: { root: '~/.fakecodex/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' } },
    }),
  );
}

describe.skipIf(e2eSkipReason)('durable sessions through a restart', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'resume',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  it('brings every tab back to its own conversation, and never reopens a closed one', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const termioHome = join(home, '.termio');
    writeManifests(termioHome);
    const agentLog = join(home, 'agents.log');
    const env = { FAKE_AGENT_LOG: agentLog };
    const logs = (): AgentLog[] => {
      try {
        return readFileSync(agentLog, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as AgentLog);
      } catch {
        return [];
      }
    };
    const [api, web] = ['api', 'web'].map((n) => join(home, n));
    mkdirSync(api!);
    mkdirSync(web!);

    // First run: a pinned agent and a discovered agent in api, a shell in web, and one tab we close.
    // Quitting ends the sessions (the setting), so the second run must bring them back by resuming.
    let run = await AppUnderTest.launch(display, { home, env, settings: { sessions: { onQuit: 'end' } } });
    app = run;
    await run.waitForWindow();
    await waitFor(async () => (await run.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const spawn = async (args: string[]) => {
      const r = await run.cli(['sessions', 'spawn', ...args]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    const pinned = await spawn(['--agent', 'fake-pinned', '--cwd', api!]);
    const discovered = await spawn(['--agent', 'fake-codex', '--cwd', api!]);
    const shell = await spawn(['--cwd', web!]);
    const closed = await spawn(['--agent', 'fake-pinned', '--cwd', web!]);
    await waitFor(() => logs().filter((l) => l.event === 'start').length === 3, { what: 'the three agents to start' });
    // Each agent writes its record on its first message, as Claude Code and Codex do.
    for (const id of [pinned, discovered]) await run.cli(['sessions', 'send', id, 'hello from the first run', '--enter']);
    await waitFor(() => logs().filter((l) => l.event === 'recordWritten').length >= 2, { what: 'both records' });
    const state = () =>
      JSON.parse(readFileSync(join(termioHome, 'state', 'sessions.json'), 'utf8')) as {
        sessions: Array<{ id: string; conversationId: string | null; family: string | null }>;
      };
    await waitFor(() => state().sessions.find((s) => s.id === discovered)?.conversationId, { what: 'the discovered id to be bound' });
    const pinnedConv = logs().find((l) => l.agent === 'fake-pinned' && l.event === 'created' && l.termioSession === pinned)!.id!;
    const discoveredConv = logs().find((l) => l.agent === 'fake-discovered' && l.event === 'minted' && l.termioSession === discovered)!.id!;
    expect(state().sessions.find((s) => s.id === discovered)?.conversationId).toBe(discoveredConv);
    // The listing says how each tab would come back: family, bound id and the exact argv.
    const listed = await listSessions<Info & { resume?: { family: string; boundId: string | null; argv: string[] | null; mode: string | null } }>(run);
    expect(listed.find((s) => s.id === pinned)?.resume).toMatchObject({
      family: 'pinned',
      boundId: pinnedConv,
      mode: 'resume',
      argv: [join(fakes, 'fakePinnedAgent.mjs'), '--resume', pinnedConv],
    });
    expect(listed.find((s) => s.id === discovered)?.resume).toMatchObject({
      family: 'discovered',
      boundId: discoveredConv,
      mode: 'resume',
      argv: [join(fakes, 'fakeDiscoveredAgent.mjs'), 'resume', discoveredConv],
    });
    expect(listed.find((s) => s.id === shell)?.resume).toMatchObject({ family: 'none', boundId: null, mode: 'fresh' });
    expect((await run.cli(['sessions', 'close', closed])).code).toBe(0);
    await run.stop();

    // Second run: the same tabs, each resumed exactly.
    const before = logs().length;
    run = await AppUnderTest.launch(display, { home, env });
    app = run;
    await run.waitForWindow();
    const restored = await waitFor(
      async () => {
        const list = (await run.cli(['sessions', 'list', '--json'])).stdout;
        const sessions = list ? (JSON.parse(list) as { sessions: Info[] }).sessions : [];
        return sessions.length === 3 ? sessions : null;
      },
      { what: 'three restored sessions' },
    );
    expect(restored.map((s) => [s.id, s.agentId ?? 'terminal', s.cwd])).toEqual([
      [pinned, 'fake-pinned', api],
      [discovered, 'fake-codex', api],
      [shell, expect.stringMatching(/^(terminal)$/), web],
    ]);
    await waitFor(
      () =>
        logs()
          .slice(before)
          .filter((l) => l.event === 'resumed').length === 2,
      { what: 'both agents to resume' },
    );
    const second = logs().slice(before);
    const pinnedStart = second.find((l) => l.event === 'start' && l.termioSession === pinned)!;
    expect(pinnedStart.argv).toEqual(['--resume', pinnedConv]);
    expect(second.find((l) => l.event === 'resumed' && l.termioSession === pinned)!.id).toBe(pinnedConv);
    const discoveredStart = second.find((l) => l.event === 'start' && l.termioSession === discovered)!;
    expect(discoveredStart.argv).toEqual(['resume', discoveredConv]);
    expect(second.find((l) => l.event === 'resumed' && l.termioSession === discovered)!.id).toBe(discoveredConv);
    expect(second.some((l) => l.termioSession === closed)).toBe(false);
    expect(second.filter((l) => l.event === 'refused')).toEqual([]);
  });
});
