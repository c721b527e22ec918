// The words and the diff of the worktree views, without a display: a real diff from a real
// repository coloured line by line, the file rows and heading, the sidebar's grouping of worktree
// sessions under their repository with their branch and count, the close questions, and the
// diff rows review comments are numbered by and the prompt they are sent as.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSidebar, type SessionSummary } from '../../../src/app/present/sidebarModel';
import { Git } from '../../../src/app/host/worktrees/git';
import { diffText } from '../../../src/app/host/worktrees/review';
import { commentRowText, darkDiff, diffRowColors, fileRowText, reviewHeading } from '../../../src/app/present/reviewText';
import { coveredLines, diffRows, parseLineRange, quotedRows, reviewPrompt } from '../../../src/protocol/reviewComments';
import { sidebarDetail, sidebarRowTip } from '../../../src/app/present/sidebarText';
import { worktreeClosePrompt, worktreeForcePrompt } from '../../../src/app/present/worktreePrompts';
import { makeRepo, writeIn } from '../../helpers/gitRepo';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the review diff', () => {
  it('colours a real diff: removed and added lines on their backgrounds, git plumbing left out', async () => {
    const repo = makeRepo({ 'a.html': '<b>old</b>\nsame\n' });
    made.push(dirname(repo));
    writeIn(repo, 'a.html', '<b>new & better</b>\nsame\n');
    const rows = diffRows(await diffText(new Git(), repo, 'HEAD', { file: 'a.html' }));
    expect(rows).toEqual([
      { text: '@@ -1,2 +1,2 @@', kind: 'hunk', line: null },
      { text: '-<b>old</b>', kind: 'removed', line: 1 },
      { text: '+<b>new & better</b>', kind: 'added', line: 1 },
      { text: ' same', kind: 'context', line: 2 },
    ]);
    expect(diffRowColors('removed', darkDiff)).toEqual(darkDiff.removed);
    expect(diffRowColors('added', darkDiff)).toEqual(darkDiff.added);
    expect(diffRowColors('hunk', darkDiff)).toEqual(darkDiff.hunk);
    expect(diffRowColors('context', darkDiff)).toEqual({ background: null, text: darkDiff.text });
    expect(diffRowColors('note', darkDiff)).toEqual({ background: null, text: darkDiff.muted });
  });

  it('numbers diff rows as in the new file: removed lines belong to the line after them', async () => {
    const repo = makeRepo({ 'a.txt': '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', 'gone.txt': 'x\ny\n' });
    made.push(dirname(repo));
    writeIn(repo, 'a.txt', '1\n2\n3\n4\n5\n6\n7\n8\n');
    rmSync(`${repo}/gone.txt`);
    const tail = diffRows(await diffText(new Git(), repo, 'HEAD', { file: 'a.txt' }));
    expect(tail.filter((r) => r.kind === 'removed')).toEqual([
      { text: '-9', kind: 'removed', line: 9 },
      { text: '-10', kind: 'removed', line: 9 },
    ]);
    expect(coveredLines(tail)).toBe('6-9');
    expect(quotedRows(tail, 8, 9)).toEqual([' 8', '-9', '-10']);
    const gone = diffRows(await diffText(new Git(), repo, 'HEAD', { file: 'gone.txt' }));
    expect(gone[0]).toEqual({ text: 'deleted file mode 100644', kind: 'note', line: null });
    expect(gone.filter((r) => r.line !== null).map((r) => [r.text, r.line])).toEqual([
      ['-x', 1],
      ['-y', 1],
    ]);
  });

  it('writes comments as the documented prompt', () => {
    expect(parseLineRange('12')).toEqual({ line: 12 });
    expect(parseLineRange('12-15')).toEqual({ line: 12, to: 15 });
    expect(parseLineRange('12-')).toBeNull();
    expect(
      reviewPrompt([
        { file: 'a.js', line: 3, text: 'Why?', quote: ['+x'] },
        { file: 'b.js', line: 1, to: 2, text: 'Rename\nboth.', quote: [' a', '-b'] },
      ]),
    ).toBe('Review comments on your changes; please address each one:\n\na.js:3\n> +x\nWhy?\n\nb.js:1-2\n>  a\n> -b\nRename\nboth.');
    expect(commentRowText({ file: 'b.js', line: 1, to: 2, text: 'Rename\nboth.', quote: [] })).toBe('b.js:1-2  Rename …');
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
