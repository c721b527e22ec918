// The words and the diff of the worktree views, without a display: a real diff from a real
// repository coloured line by line, the file rows and heading, the sidebar's grouping of worktree
// sessions under their repository with their branch and count, and the close questions.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSidebar, type SessionSummary } from '../../../src/app/present/sidebarModel';
import { Git } from '../../../src/app/host/worktrees/git';
import { diffText } from '../../../src/app/host/worktrees/review';
import { darkDiff, diffHtml, fileRowText, reviewHeading } from '../../../src/app/present/reviewText';
import { sidebarDetail, sidebarRowTip } from '../../../src/app/present/sidebarText';
import { worktreeClosePrompt, worktreeForcePrompt } from '../../../src/app/present/worktreePrompts';
import { makeRepo, writeIn } from '../../helpers/gitRepo';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the review diff', () => {
  it('colours a real diff: removed and added lines on their backgrounds, escaped, git plumbing left out', async () => {
    const repo = makeRepo({ 'a.html': '<b>old</b>\nsame\n' });
    made.push(dirname(repo));
    writeIn(repo, 'a.html', '<b>new & better</b>\nsame\n');
    const patch = await diffText(new Git(), repo, 'HEAD', { file: 'a.html' });
    const html = diffHtml(patch, darkDiff, 'DejaVu Sans Mono');
    expect(html).toContain(
      `background-color:${darkDiff.removed.background}; color:${darkDiff.removed.text}; white-space:pre; padding:0 8px;">-&lt;b&gt;old&lt;/b&gt;</td>`,
    );
    expect(html).toContain(
      `background-color:${darkDiff.added.background}; color:${darkDiff.added.text}; white-space:pre; padding:0 8px;">+&lt;b&gt;new &amp; better&lt;/b&gt;</td>`,
    );
    expect(html).toContain(`background-color:${darkDiff.hunk.background}`);
    expect(html).toContain('> same</td>');
    expect(html).not.toMatch(/index [0-9a-f]+\.\.|\+\+\+ b\/|--- a\//);
    expect(diffHtml('', darkDiff, 'x')).toContain('No differences.');
  });

  it('names each file with its change and counts, and the branch it lands on', () => {
    expect(fileRowText({ path: 'src/a.ts', kind: 'modified', added: 3, removed: 1 })).toBe('M  src/a.ts   +3 −1');
    expect(fileRowText({ path: 'logo.png', kind: 'added', added: null, removed: null })).toBe('A  logo.png   binary');
    const w = { path: '/r.worktrees/claude/x', branch: 'claude/x', base: 'main' };
    expect(reviewHeading(w, [])).toEqual({ title: 'claude/x  →  main', detail: 'no changes yet  ·  /r.worktrees/claude/x' });
    expect(
      reviewHeading(w, [
        { path: 'a', kind: 'added', added: 2, removed: 0 },
        { path: 'b', kind: 'modified', added: 1, removed: 4 },
      ]).detail,
    ).toBe('2 files changed, +3 −4  ·  /r.worktrees/claude/x');
  });
});

describe('worktree sessions in the sidebar', () => {
  const base = { agentId: 'claude', title: '', state: 'idle' as const, stateSince: 0 };
  const sessions: SessionSummary[] = [
    { ...base, id: 'main', cwd: '/src/app', createdAt: 1 },
    { ...base, id: 'wt', cwd: '/src/app.worktrees/claude/fix', createdAt: 2, worktree: { branch: 'claude/fix', repo: '/src/app', changed: 3 } },
    { ...base, id: 'other', cwd: '/src/lib', createdAt: 3 },
  ];

  it('groups them under their repository, with the count and the branch', () => {
    const groups = buildSidebar(sessions, () => 'Claude', '/home/u');
    expect(groups.map((g) => [g.folder, g.rows.map((r) => r.id)])).toEqual([
      ['/src/app', ['main', 'wt']],
      ['/src/lib', ['other']],
    ]);
    const row = groups[0]!.rows[1]!;
    expect(sidebarDetail(row, 0)).toBe('Idle now · 3 changed · ⎇ claude/fix');
    expect(sidebarDetail({ ...row, worktree: { ...row.worktree!, changed: 0 } }, 0)).toBe('Idle now · no changes · ⎇ claude/fix');
    expect(sidebarDetail(groups[0]!.rows[0]!, 0)).toBe('Claude · Idle now');
    expect(sidebarRowTip(row)).toBe('Claude\n/src/app.worktrees/claude/fix\nIdle\n3 changed · ⎇ claude/fix (double-click to review)');
  });

  it('asks keep or remove on close, and once more with what is at stake', () => {
    expect(worktreeClosePrompt('claude/fix').items.map((i) => i.id)).toEqual(['keep', 'remove']);
    const again = worktreeForcePrompt('/w has 2 uncommitted files; confirm again (--force) to remove it anyway');
    expect(again.items[0]).toMatchObject({ id: 'keep', detail: expect.stringContaining('2 uncommitted files') });
    expect(again.items[1]!.id).toBe('force');
  });
});
