// Pinned record lookup (src/app/host/resume/resumeLookup.ts) on real folders in a temporary HOME.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPinnedRecord } from '../../src/app/host/resume/resumeLookup';

const ID = '0b7f7c55-4c1e-4b55-9a55-7d0f3d1b2a10';
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-lookup-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const put = (rel: string, kind: 'file' | 'dir' = 'file') => {
  const p = join(home, rel);
  if (kind === 'dir') mkdirSync(p, { recursive: true });
  else {
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, '{}\n');
  }
  return p;
};
const look = (storeMatch: string, id = ID, storeRoot = '~/.agent/store', extra = {}) => findPinnedRecord({ storeRoot, storeMatch }, id, { home, ...extra });

describe('findPinnedRecord', () => {
  it('finds file:{id}.jsonl in a per-project folder (Claude layout), ~ expanded', async () => {
    put('.agent/store/-work-other/aaaa.jsonl');
    const p = put(`.agent/store/-work-proj/${ID}.jsonl`);
    expect(await look('file:{id}.jsonl')).toMatchObject({ kind: 'found', path: p });
  });
  it('finds dir:{id} (Grok layout) and does not take a file of that name for it', async () => {
    put(`.agent/store/enc/${ID}`, 'file');
    expect(await look('dir:{id}')).toMatchObject({ kind: 'absent', rootMissing: false });
    const p = put(`.agent/store/enc2/${ID}`, 'dir');
    expect(await look('dir:{id}')).toMatchObject({ kind: 'found', path: p });
  });
  it('finds a Gemini-style name by wildcard and id prefix at depth 3', async () => {
    const p = put(`.agent/store/slug/chats/session-2026-01-02T10-11-${ID.slice(0, 8)}.jsonl`);
    expect(await look('file:session-*-{id:8}.jsonl')).toMatchObject({ kind: 'found', path: p });
  });
  it('finds a name below literal subfolders (Qwen layout: <project>/chats/<id>.jsonl) and nowhere else', async () => {
    put(`.agent/store/proj/${ID}.jsonl`);
    put(`.agent/store/proj/other/${ID}.jsonl`);
    expect(await look('file:chats/{id}.jsonl')).toMatchObject({ kind: 'absent' });
    const p = put(`.agent/store/proj/chats/${ID}.jsonl`);
    expect(await look('file:chats/{id}.jsonl')).toMatchObject({ kind: 'found', path: p });
  });
  it('stops at the depth bound', async () => {
    put(`.agent/store/1/2/3/4/${ID}.jsonl`);
    expect(await look('file:{id}.jsonl')).toMatchObject({ kind: 'absent', truncated: false });
    expect(await look('file:{id}.jsonl', ID, '~/.agent/store', { maxDepth: 5 })).toMatchObject({ kind: 'found' });
  });
  it('says when the root does not exist (the agent never ran)', async () => {
    expect(await look('file:{id}.jsonl')).toEqual({ kind: 'absent', dirsSearched: 1, truncated: false, rootMissing: true });
  });
  it('reports a truncated search past the folder bound', async () => {
    for (let i = 0; i < 12; i++) put(`.agent/store/p${i}`, 'dir');
    put(`.agent/store/p9/${ID}.jsonl`);
    expect(await look('file:{id}.jsonl', ID, '~/.agent/store', { maxDirs: 5 })).toMatchObject({ kind: 'absent', truncated: true, dirsSearched: 5 });
  });
  it('does not follow symlinked folders (no loops), but accepts a symlinked record', async () => {
    put('.agent/store/real', 'dir');
    symlinkSync(join(home, '.agent/store'), join(home, '.agent/store/real/loop'));
    expect(await look('file:{id}.jsonl')).toMatchObject({ kind: 'absent' });
    const target = put('elsewhere/record.jsonl');
    symlinkSync(target, join(home, `.agent/store/real/${ID}.jsonl`));
    expect(await look('file:{id}.jsonl')).toMatchObject({ kind: 'found' });
  });
  it.each(['../../etc', '..', 'x/y', '--resume'])('refuses the unsafe id %j without touching the disk', async (id) => {
    put('etc/passwd');
    expect(await look('dir:{id}', id)).toMatchObject({ kind: 'lookupError' });
  });
  it('treats odd but safe ids literally', async () => {
    const id = 'a b$(x)*?[1]';
    put(`.agent/store/p/${id}.jsonl`);
    put('.agent/store/p/a bX(x)Z?[1].jsonl');
    expect(await look('file:{id}.jsonl', id)).toMatchObject({ kind: 'found', path: join(home, `.agent/store/p/${id}.jsonl`) });
  });
  it('reports bad rules and roots as values', async () => {
    expect(await look('folder:{id}')).toMatchObject({ kind: 'lookupError', message: expect.stringMatching(/expected the kind "dir" or "file"/) });
    expect(await look('dir:{id}', ID, 'relative/store')).toMatchObject({ kind: 'lookupError', message: expect.stringMatching(/expected an absolute path/) });
  });
});
