// The review view on the real app under Xvfb: a worktree session started with the real CLI in a
// real temporary repository, a change and a new file written in its worktree, the view opened
// with Ctrl+Shift+D, its coloured diff painted in the dark and then the light theme (screenshots
// in test-output/screenshots), and the new file's diff all additions. Then review comments: one
// written with the CLI, one on lines selected in the view with the keyboard, both sent to the
// fake agent as one prompt.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { darkDiff, lightDiff } from '../../src/app/present/reviewText';
import { makeRepo, writeIn } from '../helpers/gitRepo';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, hexToRgb, installFakeAgents, readPixels, useDesktop } from './harness';

const reviewKey = process.platform === 'darwin' ? 'super+shift+d' : 'ctrl+shift+d';

function writeSettings(home: string, theme: 'dark' | 'light'): void {
  mkdirSync(join(home, '.termio', 'config'), { recursive: true });
  writeFileSync(join(home, '.termio', 'config', 'settings.json'), `${JSON.stringify({ welcomeShown: true, terminal: { theme } }, null, 2)}\n`);
}

describe.skipIf(e2eSkipReason)('review view', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it("shows a worktree session's changes with coloured lines in both themes", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const repo = makeRepo({ 'README.md': '# Greeter\n\nSays hello.\n', 'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n" }, home);
    writeSettings(home, 'dark');
    const settingsFile = join(home, '.termio', 'config', 'settings.json');
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', repo, '--worktree', '--prompt', 'Greet politely', '--json']);
    expect(spawned.code).toBe(0);
    const { id, session } = JSON.parse(spawned.stdout) as { id: string; session: { cwd: string; worktree: { branch: string } } };
    expect(session.worktree.branch).toBe('claude/greet-politely');
    writeIn(
      session.cwd,
      'src/greet.js',
      "export function greet(name, polite = true) {\n  const hello = polite ? 'Good day' : 'Hello';\n  return `${hello}, ${name}!`;\n}\n",
    );
    writeIn(session.cwd, 'src/farewell.js', 'export function farewell(name) {\n  return `Goodbye, ${name}.`;\n}\n');
    await app.cli(['sessions', 'focus', id]);
    // The sidebar row with its branch and changed-files count, to look at.
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('fake claude ready'), { what: 'the agent' });
    app.screenshot('review-sidebar');

    // The picker in a repository offers the worktree toggle; Ctrl+G turns it on, remembered for the repository.
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t');
    await app.waitForLog(/picker opened/);
    display.xdotool('key', 'ctrl+g');
    await waitFor(() => existsSync(settingsFile) && readFileSync(settingsFile, 'utf8').includes(`"${session.cwd}": true`), {
      what: 'the worktree choice remembered',
    });
    app.screenshot('review-picker');
    // Started from the worktree, whose files are not committed, the new worktree is refused: the
    // picker opens again with why, and nothing is created.
    display.xdotool('key', 'Return');
    await app.waitForLog(/spawn failed \{[^\n]*"worktree":true[^\n]*has uncommitted changes/);
    await app.waitForLog(/picker shows a refusal/);
    app.screenshot('review-picker-refused');
    expect(existsSync(`${session.cwd}.worktrees`)).toBe(false);
    display.xdotool('key', 'Escape');

    display.xdotool('key', reviewKey);
    const review = await app.waitForWindow('Review changes');
    await app.waitForLog(/review loaded \{"session":"[^"]+","files":2\}/);
    /** The review window's pixels in the added and removed colours, once both reach the wanted share. */
    const colours = (name: string, c: typeof darkDiff, want: { added: boolean; removed: boolean }) =>
      waitFor(
        () => {
          const geo = app!.windowGeometry(review);
          const px = readPixels(app!.screenshot(name), geo.x, geo.y, geo.width, geo.height);
          const added = fractionNear(px, hexToRgb(c.added.background));
          const removed = fractionNear(px, hexToRgb(c.removed.background));
          return added > 0.005 === want.added && removed > 0.002 === want.removed && (want.removed || removed === 0) ? { added, removed } : null;
        },
        { what: `${name}: added ${want.added}, removed ${want.removed}` },
      );
    // Files in path order: the new file first, all additions.
    await colours('review-dark-new-file', darkDiff, { added: true, removed: false });
    display.xdotool('windowfocus', '--sync', review);
    display.xdotool('key', 'Down');
    await colours('review-dark', darkDiff, { added: true, removed: true });

    writeSettings(home, 'light');
    await app.waitForLog(/appearance \{"appearance":"light","why":"settings changed"\}/);
    await colours('review-light', lightDiff, { added: true, removed: true });
  });

  it('sends comments written in the view and with the CLI to the agent as one prompt', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const repo = makeRepo({ 'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n" }, home);
    writeSettings(home, 'dark');
    // The fake agent reads input as a TUI does (bracketed paste) and records every input it takes.
    const inputs = join(home, 'inputs.jsonl');
    appendFileSync(join(home, '.bash_profile'), `export FAKE_AGENT_PASTE=1 FAKE_AGENT_INPUTS=${inputs}\n`);
    const taken = () =>
      existsSync(inputs)
        ? readFileSync(inputs, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string)
        : [];
    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', repo, '--worktree', '--prompt', 'Greet politely', '--json']);
    expect(spawned.code).toBe(0);
    const { id, session } = JSON.parse(spawned.stdout) as { id: string; session: { cwd: string } };
    await waitFor(() => taken().length === 1, { what: 'the first prompt taken' });
    writeIn(
      session.cwd,
      'src/greet.js',
      "export function greet(name, polite = true) {\n  const hello = polite ? 'Good day' : 'Hello';\n  return `${hello}, ${name}!`;\n}\n",
    );
    writeIn(session.cwd, 'src/farewell.js', 'export function farewell(name) {\n  return `Goodbye, ${name}.`;\n}\n');
    const byCli = await app.cli(['sessions', 'comment', id, '--file', 'src/greet.js', '--line', '2', 'Keep the old greeting too.']);
    expect(byCli.code).toBe(0);

    await app.cli(['sessions', 'focus', id]);
    display.xdotool('key', reviewKey);
    const review = await app.waitForWindow('Review changes');
    await app.waitForLog(/review loaded \{"session":"[^"]+","files":2\}/);
    await app.waitForLog(/review diff shown \{"file":"src\/farewell.js","rows":5\}/);
    display.xdotool('windowfocus', '--sync', review);
    // The new file is selected first; Return goes to its diff: a note, the hunk header, then lines 1-3.
    display.xdotool('key', 'Return');
    display.xdotool('key', 'Home', 'Down', 'Down', 'shift+Down', 'c');
    await app.waitForLog(/review comment editor \{"file":"src\/farewell.js","line":1,"to":2\}/);
    display.xdotool('type', '--delay', '20', 'Say goodbye politely.');
    app.screenshot('review-comment-editor');
    display.xdotool('key', 'ctrl+Return');
    await app.waitForLog(/review comment added \{"file":"src\/farewell.js","line":1,"to":2,"ok":true\}/);
    app.screenshot('review-comments');
    const listed = JSON.parse((await app.cli(['sessions', 'comments', id, '--json'])).stdout) as { comments: Array<{ file: string; text: string }> };
    expect(listed.comments.map((c) => [c.file, c.text])).toEqual([
      ['src/greet.js', 'Keep the old greeting too.'],
      ['src/farewell.js', 'Say goodbye politely.'],
    ]);

    display.xdotool('key', 'ctrl+shift+Return');
    await app.waitForLog(/review comments sending \{"ok":true,"comments":2\}/);
    await waitFor(() => taken().length === 2, { what: 'the comments typed into the agent' });
    expect(taken()[1]).toBe(
      [
        'Review comments on your changes; please address each one:',
        '',
        'src/greet.js:2',
        "> +  const hello = polite ? 'Good day' : 'Hello';",
        'Keep the old greeting too.',
        '',
        'src/farewell.js:1-2',
        '> +export function farewell(name) {',
        '> +  return `Goodbye, ${name}.`;',
        'Say goodbye politely.',
      ].join('\n'),
    );
    // The view learns the comments were taken: its list says nothing is on the way any more.
    await app.waitForLog(/review comments shown \{"pending":0,"sending":0\}/);
    app.screenshot('review-comments-sent');
  });
});
