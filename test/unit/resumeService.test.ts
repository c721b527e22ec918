// ResumeService without ptys (src/app/host/resume/resumeService.ts): rebinding from hooks persisted at
// once, unsafe ids refused, missing manifests as values, listings; and every bundled manifest
// plans with the rules (its family agrees with manifestParse, its store rule parses).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { StateStore } from '../../src/app/host/state/stateStore';
import { ResumeService } from '../../src/app/host/resume/resumeService';
import { manifestResumeFamily, parseManifest } from '../../src/protocol/manifestParse';
import { planResume, resumeFamilyOf, type ResumeManifestInput } from '../../src/protocol/resumePlan';
import { parseStoreMatch } from '../../src/protocol/resumeStoreMatch';
import type { Manifest } from '../../src/protocol/manifestSchema';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';

const UUID = '0b7f7c55-4c1e-4b55-9a55-7d0f3d1b2a10';
const claude: ResumeManifestInput = {
  id: 'claude',
  command: 'claude',
  resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.claude/projects', storeMatch: 'file:{id}.jsonl' },
};

let home: string;
let file: string;
let store: StateStore;
let svc: ResumeService;
let bound: Array<{ sessionId: string; conversationId: string; how: string }>;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-rsvc-')));
  file = join(home, '.termio/state/sessions.json');
  store = StateStore.open({ file, writeDelayMs: 60_000 }).store;
  bound = [];
  svc = new ResumeService({ store, home, manifestOf: (id) => (id === 'claude' ? claude : null), mintId: () => UUID, onBound: (e) => bound.push(e) });
  store.addSession({ id: 's1', agentId: 'claude', cwd: home }, { windowId: 'w' });
});
afterEach(() => {
  svc.dispose();
  store.dispose();
  rmSync(home, { recursive: true, force: true });
});

const disk = () => JSON.parse(readFileSync(file, 'utf8')).sessions.find((s: { id: string }) => s.id === 's1');

describe('ResumeService', () => {
  it('persists a minted pinned id before returning the create plan', async () => {
    const plan = await svc.prepareLaunch('s1');
    expect(plan).toMatchObject({ mode: 'create', conversationId: UUID, argv: ['claude', '--session-id', UUID] });
    expect(disk()).toMatchObject({ conversationId: UUID, family: 'pinned' });
  });

  it('rebinds on a hook report, on disk at once, and plans from the new id', async () => {
    await svc.prepareLaunch('s1');
    expect(svc.rebind('s1', UUID)).toEqual({ kind: 'unchanged' });
    const next = 'a1b2c3d4-0000-4000-8000-000000000009';
    expect(svc.rebind('s1', next)).toEqual({ kind: 'rebound', previous: UUID });
    expect(disk()).toMatchObject({ conversationId: next, family: 'discovered' });
    expect(bound).toEqual([{ sessionId: 's1', conversationId: next, how: 'hook' }]);
    // The agent wrote the new conversation → resume it; never create under an id Termio did not mint.
    const dir = join(home, '.claude/projects/-proj');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${next}.jsonl`), '{}\n');
    expect(await svc.prepareLaunch('s1')).toMatchObject({ mode: 'resume', argv: ['claude', '--resume', next] });
    rmSync(join(dir, `${next}.jsonl`));
    expect(await svc.prepareLaunch('s1')).toMatchObject({ mode: 'create', conversationId: UUID });
  });

  it('refuses unsafe reported ids and unknown sessions', () => {
    expect(svc.rebind('s1', '../../x')).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/path separator/) });
    expect(svc.rebind('s1', '--dangerously-skip-permissions')).toMatchObject({ kind: 'rejected' });
    expect(svc.rebind('nope', UUID)).toEqual({ kind: 'rejected', message: 'no session nope' });
    expect(store.getSession('s1')!.conversationId).toBeNull();
  });

  it('returns a value when the agent manifest is gone, and describes it', async () => {
    store.addSession({ id: 's2', agentId: 'vanished', cwd: home, conversationId: 'c', family: 'discovered' }, { windowId: 'w' });
    expect(await svc.prepareLaunch('s2')).toEqual({
      kind: 'resumeError',
      message: 'No agent manifest with id "vanished" is loaded, so session s2 cannot be launched.',
    });
    expect(await svc.describe('s2')).toMatchObject({ family: 'unknown', boundId: 'c', plan: null });
  });

  it('seed "session-file": writes the record the agent expects before the create launch, then resumes it', async () => {
    const seeded: ResumeManifestInput = {
      id: 'seeded',
      command: 'seeded',
      resume: {
        create: '--session {id}',
        resume: '--session {id}',
        storeRoot: '~/.seeded/sessions',
        storeMatch: 'file:chats/*_{id}.jsonl',
        seed: 'session-file',
      },
    };
    const seedSvc = new ResumeService({ store, home, manifestOf: () => seeded, mintId: () => UUID });
    try {
      store.addSession({ id: 's3', agentId: 'seeded', cwd: home }, { windowId: 'w' });
      expect(await seedSvc.prepareLaunch('s3')).toMatchObject({ mode: 'create', argv: ['seeded', '--session', UUID] });
      const chats = join(home, '.seeded/sessions/chats');
      const [name] = readdirSync(chats);
      expect(name).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z_${UUID}\\.jsonl$`));
      expect(JSON.parse(readFileSync(join(chats, name!), 'utf8'))).toMatchObject({ type: 'session', id: UUID, cwd: home });
      // The record exists now: the next launch resumes, and no second record is written.
      expect(await seedSvc.prepareLaunch('s3')).toMatchObject({ mode: 'resume' });
      expect(readdirSync(chats)).toEqual([name]);
    } finally {
      seedSvc.dispose();
    }
  });

  it('without a seed, a create launch writes nothing into the store', async () => {
    await svc.prepareLaunch('s1');
    expect(() => readdirSync(join(home, '.claude'))).toThrow();
  });

  it('describes the exact argv a relaunch would use without minting or persisting anything', async () => {
    expect(await svc.describe('s1')).toMatchObject({ family: 'pinned', boundId: null, plan: { mode: 'create', argv: ['claude', '--session-id', '{id}'] } });
    expect(store.getSession('s1')!.conversationId).toBeNull();
  });
});

describe('bundled manifests', () => {
  const dir = resolve(__dirname, '../../agents');
  const manifests: Manifest[] = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
    .map((f) => {
      const r = parseManifest(readFileSync(join(dir, f), 'utf8'), f);
      if (!r.manifest) throw new Error(r.errors.join('\n'));
      return r.manifest;
    });

  it.each(manifests.map((m) => [m.id, m] as const))('%s plans by the rules', (_id, m) => {
    const family = resumeFamilyOf(m.resume);
    expect(family).toBe(manifestResumeFamily(m));
    const session = { agentId: m.id, conversationId: UUID, family: family === 'pinned' ? ('pinned' as const) : ('discovered' as const), bypass: true };
    const plan = planResume(m, session, { pinnedRecordExists: true, newId: UUID });
    if (family === 'none') {
      expect(plan.mode).toBe('fresh');
      return;
    }
    expect(plan.mode).toBe('resume');
    expect(plan.argv.filter((a) => a.includes(UUID))).toHaveLength(1);
    if (family === 'pinned') {
      expect(parseStoreMatch(m.resume!.storeMatch!)).not.toHaveProperty('message');
      expect(planResume(m, session, { pinnedRecordExists: false }).argv.some((a) => a.includes(UUID))).toBe(true);
    }
    if (m.permissionBypassFlag) expect(plan.argv.slice(-m.permissionBypassFlag.split(' ').length).join(' ')).toBe(m.permissionBypassFlag);
  });
});
