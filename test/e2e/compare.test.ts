// Fan-out in the real app under Xvfb: in the picker, three fake agents are marked (Ctrl+K) in a
// real temporary repository and given one prompt; three worktree sessions start and the compare
// view opens with a card each. After work in two worktrees, a test run and a merge (the CLI's
// verbs, which the view's buttons send too), the view shows each member's diff stat, test result
// and the merged one (screenshots in test-output/screenshots, dark and light).
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FanoutGroup } from '../../src/protocol/control';
import { commitIn, makeRepo, writeIn } from '../helpers/gitRepo';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installFakeAgents, useDesktop } from './harness';

const pickerKey = process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t';
const selectAll = process.platform === 'darwin' ? 'super+a' : 'ctrl+a';

function writeSettings(home: string, theme: 'dark' | 'light'): void {
  mkdirSync(join(home, '.termio', 'config'), { recursive: true });
  writeFileSync(join(home, '.termio', 'config', 'settings.json'), `${JSON.stringify({ welcomeShown: true, terminal: { theme } }, null, 2)}\n`);
}

describe.skipIf(e2eSkipReason)('fan-out compare view', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('fans one prompt out to three agents from the picker and compares them', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude', 'codex', 'gemini']);
    const repo = makeRepo(
      {
        'README.md': '# Greeter\n',
        'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n",
        '.termio/worktree.json': '{ "test": "grep -q polite src/greet.js" }\n',
      },
      home,
    );
    writeSettings(home, 'dark');
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', pickerKey);
    await app.waitForLog(/picker opened/);
    // The folder first (Ctrl+O), then each agent by name, marked with Ctrl+K.
    display.xdotool('key', 'ctrl+o', selectAll);
    display.xdotool('type', '--delay', '10', repo);
    display.xdotool('key', 'Return');
    for (const name of ['Claude', 'Codex', 'Gemini']) {
      display.xdotool('key', selectAll);
      display.xdotool('type', '--delay', '20', name);
      display.xdotool('key', 'ctrl+k');
    }
    app.screenshot('fanout-picker-marked');
    display.xdotool('key', 'Return');
    display.xdotool('type', '--delay', '10', 'Greet politely');
    app.screenshot('fanout-picker-prompt');
    display.xdotool('key', 'Return');
    const started = await app.waitForLog(/fan-out started \{"group":"([0-9a-f]+)","branches":\[([^\]]*)\]\}/);
    expect(started[2]).toBe('"claude/greet-politely","codex/greet-politely","gemini/greet-politely"');
    const compare = await app.waitForWindow('Compare fan-out');
    /** The compare view loaded its n-th time. */
    const loaded = (n: number) =>
      waitFor(() => (app!.log().match(/compare loaded \{"group":"[0-9a-f]+","members":3,"merged":[^}]*\}/g) ?? []).length >= n, {
        what: `compare loaded ${n}×`,
      });
    await loaded(1);

    const listed = await app.cli(['sessions', 'fanout', 'list', '--json']);
    const [group] = (JSON.parse(listed.stdout) as { groups: FanoutGroup[] }).groups;
    const [claude, codex] = group!.members;
    // Claude's work is committed and passes the test; Codex's is an uncommitted edit that fails it.
    commitIn(claude!.path, 'Greet politely', {
      'src/greet.js': "export function greet(name, polite = true) {\n  const hello = polite ? 'Good day' : 'Hello';\n  return `${hello}, ${name}!`;\n}\n",
      'src/farewell.js': 'export const farewell = (name) => `Goodbye, ${name}.`;\n',
    });
    writeIn(codex!.path, 'src/greet.js', "export function greet(name) {\n  return 'Hi ' + name;\n}\n");
    expect((await app.cli(['sessions', 'fanout', 'test', group!.id, '--member', 'claude'])).code).toBe(0);
    expect((await app.cli(['sessions', 'fanout', 'test', group!.id, '--member', 'codex'])).code).toBe(1);
    display.xdotool('windowfocus', '--sync', compare);
    display.xdotool('key', 'ctrl+r');
    await loaded(2);
    app.screenshot('fanout-compare-dark');

    const merged = await app.cli(['sessions', 'fanout', 'merge', group!.id, '--member', 'claude']);
    expect(merged.stdout).toContain('merged claude/greet-politely into main (fast-forward)');
    writeSettings(home, 'light');
    await app.waitForLog(/appearance \{"appearance":"light","why":"settings changed"\}/);
    display.xdotool('windowfocus', '--sync', compare);
    display.xdotool('key', 'ctrl+r');
    await loaded(3);
    await app.waitForLog(/compare loaded \{"group":"[0-9a-f]+","members":3,"merged":"claude\/greet-politely"\}/);
    app.screenshot('fanout-compare-light');
  });
});
