// Every door a program inside a tab could start an agent with permission bypass through, against
// the real host process (host socket, control socket, catalog) with a fake `claude` on the PATH in
// real ptys, and the built `termio` CLI run as an agent in the tab would run it: `sessions run`,
// `host spawn`, `app.launch` on the host socket, and an emptied secret beside TERMIO_SESSION.
// Each is refused from a session without bypass and allowed from one with it or from outside
// Termio; the companion's LAN switch and pairing link need the user the same way.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostClient } from '../../../src/app/client/hostClient';
import type { HostProcess } from '../../../src/app/host/hostProcess';
import { termio } from '../../helpers/controlHost';
import { makeHostHome, startLoggedHost } from '../../helpers/loggedHost';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';

const FLAG = '--dangerously-skip-permissions';

let home: string;
let proj: string;
let bin: string;
let host: HostProcess;
let logs: string[];
let env: NodeJS.ProcessEnv;
const clients: HostClient[] = [];

beforeEach(async () => {
  ({ home, proj, bin, env } = makeHostHome('termio-doors-'));
  for (const agent of ['claude', 'gemini', 'codex']) writeFake(bin, agent, 'fake-agent.mjs', agent);
  env.FAKE_AGENT_LOG = join(home, 'agents.log');
  ({ host, logs } = await startLoggedHost(env));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await host.stop('test over');
  rmSync(home, { recursive: true, force: true });
});

async function agentTab(bypass: boolean): Promise<{ id: string; env: NodeJS.ProcessEnv }> {
  const r = await host.registry.spawn({ agent: 'claude', cwd: proj, ...(bypass ? { bypass: true } : {}) });
  if (!r.ok) throw new Error(r.message);
  const id = r.record.id;
  const pid = r.record.session.pid;
  const read = (): NodeJS.ProcessEnv =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
  // What a `termio` run by the agent inherits, once the pty's child has exec'd it.
  const inside = await waitFor(() => (read().TERMIO_SESSION === id && read().TERMIO_SESSION_SECRET ? read() : null), { what: `the agent of ${id} to start` });
  return { id, env: { ...env, TERMIO_SESSION: inside.TERMIO_SESSION, TERMIO_SESSION_SECRET: inside.TERMIO_SESSION_SECRET } };
}

/** Sessions started as the command line `claude --dangerously-skip-permissions` (not as an agent tab). */
const ranWithFlag = () => host.registry.list().filter((r) => r.session.argv[0] === 'claude' && r.session.argv.includes(FLAG));

async function hostClient(who: { session?: string; secret?: string } = {}): Promise<HostClient> {
  const c = await HostClient.connect(host.socketPath, { client: 'test', version: '0', ...who });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  clients.push(c);
  return c;
}

describe('starting an agent with its bypass flag from inside a tab', () => {
  it('termio sessions run refuses a command line with an agent bypass flag from a session without bypass', async () => {
    const plain = await agentTab(false);
    const trusted = await agentTab(true);
    for (const argv of [
      ['claude', FLAG],
      [join(bin, 'claude'), FLAG],
      ['sh', '-c', `exec claude ${FLAG}`],
    ]) {
      const r = await termio(['sessions', 'run', '--', ...argv], plain.env, proj);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toContain(`session ${plain.id} runs without permission bypass`);
    }
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^control: sessions.run: bypass start refused .*"caller":"${plain.id}"`)));
    // The flag alone, to a program that is no agent, is not a bypass.
    expect((await termio(['sessions', 'run', '--', 'echo', FLAG], plain.env, proj)).status).toBe(0);
    expect((await termio(['sessions', 'run', '--', 'claude', FLAG], trusted.env, proj)).status).toBe(0);
    const outside = { ...env };
    expect((await termio(['sessions', 'run', '--', 'claude', FLAG], outside, proj)).status).toBe(0);
    expect(ranWithFlag()).toHaveLength(2);
  }, 60_000);

  it('refuses every spelling a manifest declares to grant bypass, not only its permissionBypassFlag', async () => {
    const plain = await agentTab(false);
    const spellings = [
      ['claude', '--permission-mode', 'bypassPermissions'],
      ['claude', '--permission-mode=bypassPermissions'],
      ['gemini', '--yolo'],
      ['gemini', '-y'],
      ['gemini', '--approval-mode', 'yolo'],
      ['codex', '--yolo'],
      ['codex', '-a', 'never'],
      ['sh', '-c', 'exec codex --ask-for-approval=never'],
      // Each way a parser takes the same option: its value quoted (TOML), spaced, attached to a
      // short option, under the long name; a short flag among others.
      ['codex', '-c', 'approval_policy="never"'],
      ['codex', '-c', 'approval_policy = never'],
      ['codex', '-capproval_policy=never'],
      ['codex', '--config=approval_policy=never'],
      ['sh', '-c', `exec codex -c 'approval_policy="never"'`],
      ['gemini', '-dy'],
    ];
    for (const argv of spellings) {
      const r = await termio(['sessions', 'run', '--', ...argv], plain.env, proj);
      expect(r.status, `${argv.join(' ')}: ${r.stderr} ${r.stdout} ${logs.filter((l) => l.includes('sessions.run')).join('; ')}`).toBe(1);
      expect(r.stderr).toContain(`session ${plain.id} runs without permission bypass`);
    }
    // The same option with a value that does not bypass is no bypass.
    expect((await termio(['sessions', 'run', '--', 'claude', '--permission-mode', 'plan'], plain.env, proj)).status).toBe(0);
    expect((await termio(['sessions', 'run', '--', 'codex', '-a', 'on-request'], plain.env, proj)).status).toBe(0);
    expect((await termio(['sessions', 'run', '--', 'gemini', '-d'], plain.env, proj)).status).toBe(0);
    expect(host.registry.list().filter((r) => ['gemini', 'codex'].includes(r.session.argv[0]!) || r.session.argv.includes('bypassPermissions'))).toHaveLength(
      2,
    );
  }, 60_000);

  it('an emptied TERMIO_SESSION_SECRET beside TERMIO_SESSION is not the user', async () => {
    const plain = await agentTab(false);
    const emptied = { ...plain.env, TERMIO_SESSION_SECRET: '' };
    const spawn = await termio(['sessions', 'spawn', '--agent', 'claude', '--bypass', '--cwd', proj], emptied, proj);
    expect(spawn.status, spawn.stderr).toBe(1);
    expect(spawn.stderr).toContain(`names session ${plain.id} but carries no session secret`);
    const run = await termio(['sessions', 'run', '--', 'claude', FLAG], emptied, proj);
    expect(run.status).toBe(1);
    const hostSpawn = await termio(['host', 'spawn', '--cwd', proj, '--', 'claude', FLAG], emptied, proj);
    expect(hostSpawn.status).toBe(1);
    expect(host.registry.list().filter((r) => r.bypass || r.session.argv.includes(FLAG))).toHaveLength(0);
  }, 60_000);

  it('termio host spawn refuses it from a session without bypass, allows it from one with bypass and from outside', async () => {
    const plain = await agentTab(false);
    const trusted = await agentTab(true);
    const refused = await termio(['host', 'spawn', '--cwd', proj, '--', 'claude', FLAG], plain.env, proj);
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`session ${plain.id} runs without permission bypass`);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^host: sessions.run: bypass start refused .*"caller":"${plain.id}"`)));
    expect((await termio(['host', 'spawn', '--cwd', proj, '--', 'claude', FLAG], trusted.env, proj)).status).toBe(0);
    expect((await termio(['host', 'spawn', '--cwd', proj, '--', 'claude', FLAG], env, proj)).status).toBe(0);
    expect(logs).toContainEqual(expect.stringMatching(/^host: sessions.run: bypass start allowed \(from outside Termio\)/));
    expect(ranWithFlag()).toHaveLength(2);
  }, 60_000);

  it('app.launch with bypass is refused to a connection that is not the subscribed app, and to one speaking for a session without bypass', async () => {
    const plain = await agentTab(false);
    const launch = { agentId: 'claude', cwd: proj, bypass: true, windowId: 'window-1' };
    const stranger = await hostClient();
    expect(await stranger.request('app.launch', launch)).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: expect.stringContaining('only the Termio app') },
    });
    expect(logs).toContainEqual(expect.stringMatching(/^host: app.launch: bypass start refused \(the connection is not the subscribed app\)/));
    const agentApp = await hostClient({ session: plain.env.TERMIO_SESSION!, secret: plain.env.TERMIO_SESSION_SECRET! });
    expect((await agentApp.request('app.subscribe', { restore: false })).ok).toBe(true);
    expect(await agentApp.request('app.launch', launch)).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: expect.stringContaining(`session ${plain.id} runs without permission bypass`) },
    });
    agentApp.close();
    await waitFor(() => host.server.clientCount === 1, { what: 'the agent connection to go' });
    const app = await hostClient();
    expect((await app.request('app.subscribe', { restore: false })).ok).toBe(true);
    expect(await app.request('app.launch', launch)).toMatchObject({ ok: true, result: { session: { bypass: true } } });
    expect(logs).toContainEqual(expect.stringMatching(/^host: app.launch: bypass start allowed \(from outside Termio\)/));
    expect(host.registry.list().filter((r) => r.bypass)).toHaveLength(1);
  }, 60_000);
});

describe('the companion from inside a tab', () => {
  it('will not go on the LAN nor show its pairing link; from outside Termio it does both', async () => {
    const plain = await agentTab(true);
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const lan = await termio(['companion', 'enable', '--lan', '--port', port], plain.env, proj);
    expect(lan.status).toBe(1);
    expect(lan.stderr).toContain('cannot put the companion on the network');
    expect(logs).toContainEqual(expect.stringMatching(/^companion: LAN enable refused/));
    const local = await termio(['companion', 'enable', '--loopback', '--port', port], plain.env, proj);
    expect(local.status, local.stderr).toBe(0);
    expect(local.stdout).toContain('the pairing link is not shown inside a Termio session');
    expect(local.stdout).not.toContain('#t=');
    const url = await termio(['companion', 'url'], plain.env, proj);
    expect(url.status).toBe(1);
    expect(url.stdout + url.stderr).not.toContain('#t=');
    const user = await termio(['companion', 'url'], env, proj);
    expect(user.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#t=[\\w-]{43}$`, 'm'));
    // Off again: a later plain enable from inside the tab may not bring back a LAN the user chose.
    expect((await termio(['companion', 'enable', '--lan', '--port', port], env, proj)).status).toBe(0);
    const again = await termio(['companion', 'enable'], plain.env, proj);
    expect(again.status).toBe(1);
    expect((await termio(['companion', 'disable'], env, proj)).status).toBe(0);
  }, 60_000);
});

describe('machines from inside a tab', () => {
  it('a session without bypass can neither add a machine (its ssh options would run outside the tab) nor remove one; the user can', async () => {
    const plain = await agentTab(false);
    const injected = join(home, 'injected-by-proxy-command');
    const machinesFile = join(home, '.termio', 'config', 'machines.json');
    const add = await termio(['machines', 'add', 'pc', '127.0.0.1', '--ssh-option', `ProxyCommand=sh -c "touch ${injected}; exit 1"`], plain.env, proj);
    expect(add.status).not.toBe(0);
    expect(add.stderr).toContain(`session ${plain.id} runs without permission bypass, so it cannot add machine 'pc'`);
    expect(existsSync(machinesFile)).toBe(false);
    expect(logs).toContainEqual(expect.stringMatching(new RegExp(`^host: machines.add: change refused .*"caller":"${plain.id}"`)));

    // The user adds one from outside Termio (an unreachable port: nothing answers there); the tab still cannot remove it.
    await termio(['machines', 'add', 'pc', '127.0.0.1', '--port', '1'], env, proj);
    expect(JSON.parse(readFileSync(machinesFile, 'utf8'))).toHaveProperty('machines.pc');
    const remove = await termio(['machines', 'remove', 'pc'], plain.env, proj);
    expect(remove.status).not.toBe(0);
    expect(remove.stderr).toContain(`cannot remove machine 'pc'`);
    expect((await termio(['machines', 'remove', 'pc'], env, proj)).status).toBe(0);
    expect(existsSync(injected)).toBe(false);
  }, 60_000);
});

describe('a session answering itself', () => {
  it('cannot type into or answer its own tab without bypass; another tab and the user can, and the refusal is logged', async () => {
    const plain = await agentTab(false);
    const other = await agentTab(false);
    const trusted = await agentTab(true);
    for (const args of [
      ['sessions', 'send', plain.id, '1'],
      ['sessions', 'answer', plain.id, '1', '--force'],
    ]) {
      const r = await termio(args, plain.env, proj);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`session ${plain.id} runs without permission bypass, so it cannot (type into its own tab|answer its own question)`));
    }
    expect(logs.some((l) => l.includes('sessions.answer: own session refused') && l.includes(plain.id))).toBe(true);
    // Another tab drives it (agents drive agents), and a tab with bypass may answer itself: no
    // question is asked, so the answer is refused for that reason, not as forbidden.
    expect((await termio(['sessions', 'send', plain.id, 'x'], other.env, proj)).status).toBe(0);
    const fromOther = await termio(['sessions', 'answer', plain.id, '1', '--force'], other.env, proj);
    expect(fromOther.stderr).toContain('asks no question now');
    const byItself = await termio(['sessions', 'answer', trusted.id, '1', '--force'], trusted.env, proj);
    expect(byItself.stderr).toContain('asks no question now');
    expect((await termio(['sessions', 'send', plain.id, 'y'], env, proj)).status).toBe(0);
  }, 60_000);
});
