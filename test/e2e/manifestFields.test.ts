// Manifest fields doing their work in the real app under Xvfb, driven by the termio CLI:
// - promptTitle and tool: two sessions of one (fake) agent, each named in the sidebar after the
//   prompt its hook reported, and the one that asks for Bash says so in the why strip and in
//   `sessions why` (screenshot test-output/screenshots/manifest-fields-prompt-title-and-tool.png);
// - scripts hooks: `termio hooks install` writes one executable per event into the (fake) Cline's
//   hooks folder beside the user's own script, the agent reports through them, and uninstall
//   leaves the folder exactly as it was.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, cliJson, Display, e2eSkipReason, installFakeAgents, listSessions, useDesktop } from './harness';

interface Info {
  id: string;
  title: string;
  state: string;
}

/** Every file in a folder with its mode and bytes: what "as it was" means. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((n) => [n, `${(statSync(join(dir, n)).mode & 0o777).toString(8)} ${readFileSync(join(dir, n), 'utf8')}`]),
  );
}

describe.skipIf(e2eSkipReason)('manifest fields in the running app', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'manifest-fields',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  async function launch(home: string): Promise<AppUnderTest> {
    const a = await AppUnderTest.launch(display, { home });
    await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return a;
  }

  async function spawnAgent(a: AppUnderTest, agent: string, ready: string): Promise<string> {
    const r = await a.cli(['sessions', 'spawn', '--agent', agent, '--cwd', a.home]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes(ready), { what: `${agent} to start` });
    return id;
  }

  it('prompt title and tool', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    installFakeAgents(home, ['claude']);
    // A user manifest (camelCase id, as other hosts write them) whose hooks name the payload keys.
    const agents = join(home, '.termio', 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, 'deskPilot.json'),
      JSON.stringify({
        id: 'deskPilot',
        name: 'Desk Pilot',
        command: 'claude',
        hooks: {
          type: 'json',
          file: '~/.claude/settings.json',
          dialect: 'claude',
          promptTitle: 'prompt',
          tool: 'tool_name',
          events: [
            { on: 'UserPromptSubmit', state: 'working' },
            { on: 'PreToolUse', state: 'working' },
            { on: 'PermissionRequest', state: 'attention' },
            { on: 'Stop', state: 'done' },
          ],
        },
      }),
    );
    app = await launch(home);
    const hooks = await app.cli(['hooks', 'install', '--agent', 'deskPilot']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);

    const notes = await spawnAgent(app, 'deskPilot', 'fake claude ready');
    const parser = await spawnAgent(app, 'deskPilot', 'fake claude ready');
    await app.cli(['sessions', 'send', notes, 'write the release notes', '--enter']);
    await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.id === notes)?.state === 'done', { what: 'the first turn to end' });
    await app.cli(['sessions', 'send', parser, 'refactor the parser, ask first', '--enter']);
    await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.id === parser)?.state === 'attention', { what: 'the permission ask' });

    // Each row is named after its own prompt, not "✳ Claude Code".
    const list = await listSessions<Info>(app);
    expect(list.map((s) => [s.id, s.title])).toEqual([
      [notes, 'write the release notes'],
      [parser, 'refactor the parser, ask first'],
    ]);
    const why = await cliJson<{ state: string; tool?: string; event?: string }>(app, ['sessions', 'why', parser]);
    expect(why).toMatchObject({ state: 'attention', event: 'PermissionRequest', tool: 'Bash' });
    expect((await app.cli(['sessions', 'why', parser])).stdout).toMatch(/^attention since .* — hooks PermissionRequest at .* — waiting on Bash\n/);

    // The why strip under the sidebar, for the session on screen.
    await app.cli(['sessions', 'focus', parser]);
    await app.waitForLog(/why shown \{"text":"Needs you — waiting on Bash — hook PermissionRequest, /);
    app.screenshot('manifest-fields-prompt-title-and-tool');
  });

  it('progressStatus: an OSC 9;4 report shows the session working with its percentage', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    const bin = join(home, 'bin');
    mkdirSync(bin);
    // An agent that reports 42 % with ConEmu's progress sequence, then waits for input.
    writeFileSync(join(bin, 'progress-agent'), `#!/bin/sh\nprintf 'building\\n\\033]9;4;1;42\\007'\nread line\n`, { mode: 0o755 });
    writeFileSync(join(home, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
    const agents = join(home, '.termio', 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, 'progress-agent.json'),
      JSON.stringify({ id: 'progress-agent', name: 'Progress', command: 'progress-agent', progressStatus: true }),
    );
    app = await launch(home);
    const id = await spawnAgent(app, 'progress-agent', 'building');
    await waitFor(async () => (await cliJson<{ state: string; channel: string }>(app!, ['sessions', 'why', id])).channel === 'progress', {
      what: 'the progress channel',
    });
    expect(await cliJson(app, ['sessions', 'why', id])).toMatchObject({ state: 'working', channel: 'progress', event: '42%' });
    app.screenshot('manifest-fields-progress');
  });

  it('scripts hooks: one script per event, reports through them, uninstall leaves the folder as it was', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    installFakeAgents(home, ['cline']);
    const folder = join(home, 'Documents', 'Cline', 'Hooks');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'PreCompact'), '#!/bin/sh\necho "{\\"cancel\\":false}"\n');
    chmodSync(join(folder, 'PreCompact'), 0o700);
    const before = snapshot(folder);
    app = await launch(home);

    const installed = (
      await cliJson<{ agents: Array<{ agentId: string; state: string; file: string; events: string[] }> }>(app, ['hooks', 'install', '--agent', 'cline'])
    ).agents;
    const events = ['TaskStart', 'TaskResume', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'TaskComplete', 'TaskError', 'SessionShutdown', 'TaskCancel'];
    expect(installed).toEqual([expect.objectContaining({ agentId: 'cline', state: 'installed', file: folder, events })]);
    expect(
      readdirSync(folder)
        .filter((n) => !n.startsWith('.'))
        .sort(),
    ).toEqual([...events, 'PreCompact'].sort());
    for (const e of events) expect(statSync(join(folder, e)).mode & 0o111).toBe(0o111);

    const id = await spawnAgent(app, 'cline', 'fake cline ready');
    await app.cli(['sessions', 'send', id, 'tidy the build scripts', '--enter']);
    await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.id === id)?.state === 'done', { what: 'TaskComplete to end the turn' });
    const [info] = await listSessions<Info>(app);
    expect(info).toMatchObject({ id, title: 'tidy the build scripts' });
    expect(await cliJson(app, ['sessions', 'why', id])).toMatchObject({ channel: 'hooks', event: 'TaskComplete' });

    const removed = await app.cli(['hooks', 'uninstall', '--agent', 'cline']);
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    expect(snapshot(folder)).toEqual(before);
  });
});
