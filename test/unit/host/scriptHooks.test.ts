// The "scripts" hook type (Cline's hooks folder): one executable per event, written beside the
// user's own scripts, never over them; a fake Cline in a real pty runs them with its payload and
// the real reporter brings the state, the prompt title and the tool to the tracker; uninstall
// leaves the folder exactly as it was (or removes it when we created it).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentHookStatus, defaultReporterLocation, installAgentHooks, uninstallAgentHooks } from '../../../src/app/services/hookInstaller';
import { HookServer } from '../../../src/app/host/status/hookServer';
import { termioPaths } from '../../../src/app/services/paths';
import { StatusTracker, type HookDetailsEvent } from '../../../src/app/host/status/statusTracker';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { Session } from '../../../src/terminal/node';
import { waitFor } from '../../helpers/waitFor';
import { SessionSecrets } from '../../helpers/sessionSecrets';

const FAKE = join(__dirname, '..', '..', 'fakes', 'fake-agent.mjs');
const manifestFile = join(__dirname, '..', '..', '..', 'agents', 'cline.json');
const manifest = parseManifest(readFileSync(manifestFile, 'utf8'), 'agents/cline.json').manifest!;
const agent = { agentId: manifest.id, hooks: manifest.hooks! };

let home: string;
const dir = () => join(home, 'Documents', 'Cline', 'Hooks');
const opts = () => ({ paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter: defaultReporterLocation() });

/** Every file in the folder with its bytes and mode: what "as it was" means. */
function snapshot(d: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(d)
      .sort()
      .map((n) => [n, `${(statSync(join(d, n)).mode & 0o777).toString(8)} ${readFileSync(join(d, n), 'utf8')}`]),
  );
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-scripts-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('scripts hooks', () => {
  it("installs one executable per event beside the user's scripts, never over one, and uninstall restores the folder", () => {
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'PreCompact'), '#!/bin/sh\necho mine\n', { mode: 0o700 });
    writeFileSync(join(dir(), 'TaskCancel'), "#!/bin/sh\n# the user's own TaskCancel\n", { mode: 0o755 });
    chmodSync(join(dir(), 'PreCompact'), 0o700);
    const before = snapshot(dir());

    const r = installAgentHooks(agent, opts());
    expect(r).toMatchObject({ state: 'partial', action: 'written', file: dir(), missing: ['TaskCancel'] });
    expect(r.error).toBe(`${dir()}: "TaskCancel" is your own script; left untouched, so that event does not report`);
    for (const e of agent.hooks.events.filter((x) => x.on !== 'TaskCancel')) {
      const file = join(dir(), e.on);
      expect(statSync(file).mode & 0o777).toBe(0o755);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('#!/bin/sh\n')).toBe(true);
      expect(text).toContain(`cline ${e.state} ${e.on}`);
    }
    expect(readFileSync(join(dir(), 'TaskCancel'), 'utf8')).toBe("#!/bin/sh\n# the user's own TaskCancel\n");
    expect(installAgentHooks(agent, opts())).toMatchObject({ action: 'unchanged' });
    expect(agentHookStatus(agent, opts())).toMatchObject({ state: 'partial', missing: ['TaskCancel'] });

    expect(uninstallAgentHooks(agent, opts())).toMatchObject({ state: 'absent', action: 'removed' });
    expect(snapshot(dir())).toEqual(before);
  });

  it('removes the folder on uninstall when install created it, and drops scripts of events no longer declared', () => {
    const fewer = { ...agent, hooks: { ...agent.hooks, events: agent.hooks.events.slice(0, 2) } };
    installAgentHooks(agent, opts());
    installAgentHooks(fewer, opts());
    expect(
      readdirSync(dir())
        .filter((n) => !n.startsWith('.'))
        .sort(),
    ).toEqual(fewer.hooks.events.map((e) => e.on).sort());
    uninstallAgentHooks(fewer, opts());
    expect(existsSync(dir())).toBe(false);
    expect(existsSync(join(home, 'Documents', 'Cline'))).toBe(true);
  });

  it('a fake Cline runs the scripts: working, the prompt as the title, the tool, done', async () => {
    installAgentHooks(agent, opts());
    const tracker = new StatusTracker();
    const secrets = new SessionSecrets();
    const server = await HookServer.start({
      paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }),
      secretOf: (id) => (tracker.isTracked(id) ? secrets.secretOf(id) : undefined),
    });
    if (!(server instanceof HookServer)) throw new Error(server.message);
    server.onReport((r) => tracker.handleReport(r));
    const details: HookDetailsEvent[] = [];
    tracker.onHookDetails((d) => details.push(d));
    const minted = secrets.mint();
    const s = Session.spawn({
      id: minted.id,
      argv: [process.execPath, FAKE, 'cline'],
      cwd: home,
      env: { HOME: home, TERMIO_HOME: join(home, '.termio'), ...server.sessionEnv(), ...minted.env },
    });
    if (!(s instanceof Session)) throw new Error(s.message);
    try {
      tracker.track(s, agent);
      await waitFor(() => s.screenLines().join('\n').includes('fake cline ready'), { what: 'the fake Cline' });
      s.write('tidy the parser\r');
      await waitFor(() => details.some((d) => d.report.event === 'TaskComplete'), { what: 'the TaskComplete script' });
      expect(details.map((d) => d.report.event)).toEqual(['TaskStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'TaskComplete']);
      expect(details.find((d) => d.report.event === 'UserPromptSubmit')?.details).toMatchObject({ promptTitle: 'tidy the parser' });
      expect(details.find((d) => d.report.event === 'PreToolUse')?.details).toMatchObject({ tool: 'Bash' });
      expect(tracker.status(s.id)).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'TaskComplete' } });
      // Cline got its JSON reply from every script (the fake prints a line when one is missing).
      expect(s.screenLines().join('\n')).not.toContain('gave no JSON reply');
    } finally {
      s.dispose();
      tracker.dispose();
      await server.close();
    }
  });
});
