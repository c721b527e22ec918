// The session host is the one writer of settings.json and the agents' hook configs: a change
// made from the CLI (`termio settings set`, `termio hooks install`) and one made by the app's code
// path (RemoteHost.setSetting, what the Settings window calls) are both written by the running
// host (its log says so, its own state follows), a user's comments in the file survive, a value
// the setting does not take is refused with nothing written, and a hand edit still applies live.
// The host runs in this process (HostProcess); the CLI is the built bin/termio.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteHost } from '../../src/app/client/remoteHost';
import { nullLogger } from '../../src/app/services/log';
import { termioPaths } from '../../src/app/services/paths';
import { AgentHome } from '../helpers/agentHome';
import { termio } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';

let home: AgentHome;
let settingsFile: string;
const hostLog = () => readFileSync(join(home.home, 'host.log'), 'utf8');
const hostSettings = () => home.host!.host.settings.settings;

beforeAll(async () => {
  home = new AgentHome(process.execPath, 'writer-');
  settingsFile = termioPaths(home.env).settingsFile;
  mkdirSync(dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, '{\n  // my font, chosen with care\n  "terminal": { "fontSize": 14 },\n}\n');
  await home.startHost();
}, 60_000);

afterAll(async () => {
  await home?.dispose();
});

describe('one writer of shared state', () => {
  it('`termio settings set` is written by the running host, which applies it, and keeps the comment', async () => {
    const r = await home.termioJson<{ written: string; key: string[] }>(['settings', 'set', 'terminal.fontSize', '17']);
    expect(r).toMatchObject({ written: 'host', key: ['terminal', 'fontSize'] });
    expect(hostSettings().terminal.fontSize).toBe(17);
    const text = readFileSync(settingsFile, 'utf8');
    expect(text).toContain('// my font, chosen with care');
    expect(text).toMatch(/"fontSize": 17/);
    expect(hostLog()).toMatch(/setting changed.*terminal\.fontSize/);
    // Read back through the host: what it applies now.
    expect(await home.termioJson<{ value: unknown }>(['settings', 'get', 'terminal.fontSize'])).toMatchObject({ value: 17 });
  }, 60_000);

  it('a value the setting does not take is refused by the host, naming the setting, and nothing is written', async () => {
    const before = readFileSync(settingsFile, 'utf8');
    const r = await home.termio(['settings', 'set', 'terminal.fontSize', '"huge"']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/terminal\.fontSize: expected number.*nothing was changed/);
    const unknown = await home.termio(['settings', 'set', 'terminal.nope.deeper', '1']);
    expect(unknown.status).toBe(1);
    const noSection = await home.termio(['settings', 'set', 'colours', '1']);
    expect(noSection.stderr).toContain("there is no setting 'colours'");
    expect(readFileSync(settingsFile, 'utf8')).toBe(before);
  }, 60_000);

  it("the app's Settings path (RemoteHost.setSetting) is written by the host, and both sides read the new value", async () => {
    const started = await RemoteHost.start({ logger: nullLogger, env: home.env });
    if (!started.ok) throw new Error(started.message);
    const app = started.host;
    try {
      expect(await app.setSetting(['sessions', 'needsYouFirst'], true)).toBeNull();
      expect(hostSettings().sessions.needsYouFirst).toBe(true);
      expect(app.settings.settings.sessions.needsYouFirst).toBe(true);
      expect(readFileSync(settingsFile, 'utf8')).toMatch(/"needsYouFirst": true/);
      expect(hostLog()).toMatch(/setting changed.*sessions\.needsYouFirst/);
      // Removing a key (a shortcut set back to its default) leaves the default.
      expect(await app.setSetting(['sessions', 'needsYouFirst'], undefined)).toBeNull();
      expect(hostSettings().sessions.needsYouFirst).toBe(false);
      expect(readFileSync(settingsFile, 'utf8')).not.toContain('needsYouFirst');
      // Refused: the answer says why, the file keeps what it had.
      expect(await app.setSetting(['terminal', 'scrollback'], -5)).toMatch(/terminal\.scrollback/);
      expect(hostSettings().terminal.scrollback).toBe(10_000);
      // The picker asks the host for the login PATH its launcher uses (here the PATH the host was given).
      const asked = await app.client.request('agents.loginPath', {});
      expect(asked).toMatchObject({ ok: true, result: { path: home.path } });
    } finally {
      app.dispose();
    }
  }, 60_000);

  it('a change asked from inside a session without bypass is refused (a setting can make the host run things)', async () => {
    const before = readFileSync(settingsFile, 'utf8');
    const env = { ...home.env, TERMIO_SESSION_SECRET: 'x'.repeat(43) };
    const set = await termio(['settings', 'set', 'agents.claude.bypass', 'true'], env, home.home, 60_000);
    expect(set.status).toBe(1);
    expect(set.stderr).toContain(
      'a session secret no running Termio session has (a session that ended?), so it cannot change the setting agents.claude.bypass',
    );
    const hooks = await termio(['hooks', 'install', '--agent', 'claude'], env, home.home, 60_000);
    expect(hooks.status).toBe(1);
    expect(hooks.stderr).toContain('so it cannot install agent hooks');
    expect(readFileSync(settingsFile, 'utf8')).toBe(before);
  }, 60_000);

  it('a hand edit of settings.json still applies live in the host', async () => {
    const text = readFileSync(settingsFile, 'utf8').replace('"fontSize": 17', '"fontSize": 21');
    writeFileSync(settingsFile, text);
    await waitFor(() => hostSettings().terminal.fontSize === 21, { what: 'the host to read the hand edit' });
    expect(await home.termioJson<{ value: unknown }>(['settings', 'get', 'terminal.fontSize'])).toMatchObject({ value: 21 });
  }, 60_000);

  it('`termio hooks install` with a host running is done by the host', async () => {
    const r = await home.termioJson<{ agents: { agentId: string; state: string; file: string }[] }>(['hooks', 'install', '--agent', 'claude']);
    expect(r.agents).toEqual([expect.objectContaining({ agentId: 'claude', state: 'installed' })]);
    const file = r.agents[0]!.file;
    expect(readFileSync(file, 'utf8')).toContain('termio-hook');
    expect(hostLog()).toMatch(new RegExp(`agent config changed.*"agentId":"claude".*"action":"written"`));
    // And out again, by the host too.
    const off = await home.termioJson<{ agents: { state: string }[] }>(['hooks', 'uninstall', '--agent', 'claude']);
    expect(off.agents[0]).toMatchObject({ state: 'absent' });
    expect(hostLog()).toMatch(/agent config changed.*"agentId":"claude".*"action":"removed"/);
  }, 60_000);
});
