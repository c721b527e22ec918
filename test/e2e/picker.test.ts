// The agent picker, keyboard only: the shortcut opens it, typing filters, Enter starts the chosen
// agent (a fake Claude Code on the login shell's PATH) in the current session's folder, also one
// installed after the app started; Ctrl+O picks another folder first. A `grok` that answers as
// another program is shown as one (its row greyed, its Enter the install page).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installFakeAgents, listSessions, useDesktop } from './harness';

interface Info {
  id: string;
  agentId: string | null;
  cwd: string;
}

const newSessionKeys = process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t';

describe.skipIf(e2eSkipReason)('agent picker', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'picker',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  async function startWithFakeClaude(): Promise<{ win: string; project: string }> {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    installFakeAgents(home, ['claude']);
    const project = join(home, 'project');
    mkdirSync(project);
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return { win, project };
  }

  it('starts the filtered agent in the current folder with Enter', async () => {
    const { win, project } = await startWithFakeClaude();
    const shell = (await app!.cli(['sessions', 'spawn', '--cwd', project])).stdout.trim();
    await app!.cli(['sessions', 'focus', shell]);
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', newSessionKeys);
    await waitFor(() => app!.log().includes('picker opened'), { what: 'the picker to open' });
    display.xdotool('type', '--delay', '30', 'clau');
    app!.screenshot('picker-filtered');
    display.xdotool('key', 'Return');
    const started = await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.agentId === 'claude'), { what: 'a Claude Code session' });
    expect(started.cwd).toBe(project);
    await waitFor(async () => (await app!.cli(['sessions', 'read', started.id])).stdout.includes('fake claude ready'), { what: 'the agent to draw' });
  });

  it('starts an agent installed while the app runs, found on the PATH the profile exports since', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    // Installed now: the command in a new folder, and ~/.bash_profile putting that folder on PATH.
    installFakeAgents(home, ['claude']);
    const changesBefore = app.log().split('catalog changed').length;
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', newSessionKeys);
    await waitFor(() => app!.log().includes('picker opened'), { what: 'the picker to open' });
    // The picker looked again: the login shell, asked again, exports the new PATH.
    await waitFor(() => app!.log().split('catalog changed').length > changesBefore, { what: 'the picker to learn of the new agent' });
    display.xdotool('type', '--delay', '30', 'clau');
    display.xdotool('key', 'Return');
    const started = await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.agentId === 'claude'), { what: 'a Claude Code session' });
    await waitFor(async () => (await app!.cli(['sessions', 'read', started.id])).stdout.includes('fake claude ready'), { what: 'the agent to draw' });
  });

  it('shows another program named grok as such, and a muted note on agents not verified here', async () => {
    const { win } = await startWithFakeClaude();
    // What npm's @vibe-kit/grok-cli puts on PATH: it answers --version with a bare "1.0.1".
    writeFileSync(join(app!.home, 'bin', 'grok'), '#!/bin/sh\necho 1.0.1\n', { mode: 0o755 });
    // Cursor's CLI, which npm does not have, so the release matrix never runs it.
    writeFileSync(join(app!.home, 'bin', 'cursor-agent'), '#!/bin/sh\necho cursor\n', { mode: 0o755 });
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', newSessionKeys);
    await waitFor(() => app!.log().includes('picker opened'), { what: 'the picker to open' });
    // The picker looked again, found the new grok, asked it what it is and redrew its row.
    await waitFor(() => app!.log().includes('"Grok":"another program named grok"'), { what: 'the picker to mark grok as another program' });
    const line = app!
      .log()
      .split('\n')
      .findLast((l) => l.includes('picker agents'))!;
    const { notes } = JSON.parse(line.slice(line.indexOf('{'))) as { notes: Record<string, string> };
    // Cursor starts, with the muted note (no release of it is verified here); Claude Code, which
    // the release matrix runs, and the plain Terminal, which has nothing to verify, carry none.
    expect(notes).toMatchObject({ Cursor: 'not verified here', Grok: 'another program named grok' });
    expect(notes).not.toHaveProperty('Claude Code');
    expect(notes).not.toHaveProperty('Terminal');
    app!.screenshot('picker-identity');
  });

  it('chooses another folder first with Ctrl+O, all from the keyboard', async () => {
    const { win, project } = await startWithFakeClaude();
    const other = join(app!.home, 'other');
    mkdirSync(other);
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', newSessionKeys);
    await waitFor(() => app!.log().includes('picker opened'), { what: 'the picker to open' });
    display.xdotool('key', 'ctrl+o');
    display.xdotool('key', 'ctrl+a');
    display.xdotool('type', '--delay', '10', other);
    display.xdotool('key', 'Return');
    display.xdotool('type', '--delay', '30', 'claude');
    display.xdotool('key', 'Return');
    const started = await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.agentId === 'claude'), { what: 'a Claude Code session' });
    expect(started.cwd).toBe(other);
    expect(started.cwd).not.toBe(project);
  });
});
