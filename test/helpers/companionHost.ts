// A session host with its web companion on, for the companion's tests: either the real
// termio-host process (built dist/) or a HostProcess in this process (when a test must drive a
// session's state through the registry), in a temporary HOME and TERMIO_HOME, on a free port,
// with the pairing token read from its file as a user's QR code would carry it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HostClient } from '../../src/app/client/hostClient';
import { HostProcess } from '../../src/app/host/hostProcess';
import { createLogger } from '../../src/app/services/log';
import type { NotificationSink } from '../../src/app/services/notifier';
import { HOST_SOCKET_FILE } from '../../src/protocol/hostFraming';
import { freePort } from './ports';
import { endProcessesWithHome, waitForExit } from './processes';
import { waitFor } from './waitFor';

export const repoRoot = resolve(__dirname, '..', '..');

export interface CompanionHome {
  home: string;
  env: NodeJS.ProcessEnv;
  port: number;
  base: string;
  socket: string;
  token(): string;
  /** A HostClient on the host's socket (closed with dispose). */
  client(): Promise<HostClient>;
  /** Starts a /bin/sh session with a plain prompt; returns its id. */
  spawnShell(title: string, cwd?: string): Promise<string>;
}

/** User manifests to write into config/agents before the host starts, by id. */
export type TestAgents = Record<string, Record<string, unknown>>;

async function makeHome(enabled: boolean, agents: TestAgents = {}): Promise<Omit<CompanionHome, 'client' | 'spawnShell'> & { clients: HostClient[] }> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'tcomp-')));
  const termioHome = join(home, '.termio');
  const port = await freePort();
  mkdirSync(join(termioHome, 'config', 'agents'), { recursive: true });
  for (const [id, manifest] of Object.entries(agents)) writeFileSync(join(termioHome, 'config', 'agents', `${id}.json`), JSON.stringify({ id, ...manifest }));
  writeFileSync(join(termioHome, 'config', 'settings.json'), JSON.stringify({ companion: { enabled, port, network: 'loopback' } }));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TERMIO_HOME: termioHome, TERMIO_HOST_IDLE_MS: '0', SHELL: '/bin/sh' };
  return {
    home,
    env,
    port,
    base: `http://127.0.0.1:${port}`,
    socket: join(termioHome, 'run', HOST_SOCKET_FILE),
    clients: [],
    token: () => readFileSync(join(termioHome, 'companion-token'), 'utf8').trim(),
  };
}

function withClients(h: Awaited<ReturnType<typeof makeHome>>): CompanionHome {
  const client = async (): Promise<HostClient> => {
    const c = await HostClient.connect(h.socket, { client: 'companion-test', version: '0' });
    if (!(c instanceof HostClient)) throw new Error(`cannot reach the host: ${c.message}`);
    h.clients.push(c);
    return c;
  };
  let shared: HostClient | null = null;
  return {
    ...h,
    client,
    async spawnShell(title, cwd = h.home) {
      shared ??= await client();
      // A quiet prompt whatever the login environment says, so screens are easy to assert.
      const r = await shared.request('sessions.run', { cwd, argv: ['/usr/bin/env', 'PS1=$ ', 'ENV=', '/bin/sh'], title });
      if (!r.ok) throw new Error(r.error.message);
      return r.result.session.id;
    },
  };
}

/**
 * Waits until the host's log says its companion listens on the port the test gave it, so a test
 * never talks to whatever else holds that port; a companion that could not start is an error
 * carrying the host's reason.
 */
async function companionListening(termioHome: string, port: number): Promise<void> {
  const log = join(termioHome, 'logs', 'host.log');
  await waitFor(
    () => {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        return false;
      }
      for (const line of text.split('\n')) {
        if (line.includes('companion not started')) throw new Error(`the host's companion did not start: ${line}`);
        if (line.includes('companion listening') && line.includes(`"port":${port}`)) return true;
      }
      return false;
    },
    { what: `the host's companion to listen on ${port}` },
  );
}

/** The real termio-host process; `config` files (machines.json, …) are written into config/ first,
 *  and `env` adds to its environment. */
export async function startHostProcess(
  opts: { enabled?: boolean; agents?: TestAgents; config?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<CompanionHome & { child: ChildProcess; stop(): Promise<void> }> {
  const h = await makeHome(opts.enabled ?? true, opts.agents);
  for (const [name, text] of Object.entries(opts.config ?? {})) writeFileSync(join(h.env.TERMIO_HOME!, 'config', name), text);
  Object.assign(h.env, opts.env);
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'termio-host')], { env: { ...h.env, PS1: '$ ', ENV: '' }, stdio: 'ignore' });
  const ready = await waitFor(
    async () => {
      const c = await HostClient.connect(h.socket, { client: 'companion-test', version: '0' });
      if (!(c instanceof HostClient)) return null;
      c.close();
      return true;
    },
    { what: 'termio-host to listen' },
  );
  void ready;
  if (opts.enabled ?? true) await companionListening(h.env.TERMIO_HOME!, h.port);
  return {
    ...withClients(h),
    child,
    async stop() {
      for (const c of h.clients) c.close();
      if (child.exitCode === null && child.pid) {
        child.kill('SIGTERM');
        await waitForExit(child.pid, 'termio-host to stop');
      }
      rmSync(h.home, { recursive: true, force: true });
    },
  };
}

/** A HostProcess in this process: the test may reach into its registry. */
export async function startHostInProcess(
  opts: {
    enabled?: boolean;
    agents?: TestAgents;
    path?: string;
    env?: Record<string, string>;
    notificationSink?: NotificationSink;
    startApp?: (focusSession: string | null) => void;
  } = {},
): Promise<CompanionHome & { host: HostProcess; stop(): Promise<void> }> {
  const h = await makeHome(opts.enabled ?? true, opts.agents);
  Object.assign(h.env, opts.env);
  const prev = { PS1: process.env.PS1, ENV: process.env.ENV };
  // Sessions inherit this process's environment: a plain prompt and no rc file.
  process.env.PS1 = '$ ';
  process.env.ENV = '';
  const started = await HostProcess.start({
    env: h.env,
    logger: createLogger(join(h.home, 'host.log')),
    idleExitMs: 0,
    ...(opts.path !== undefined ? { path: opts.path } : {}),
    ...(opts.notificationSink ? { notificationSink: opts.notificationSink } : {}),
    ...(opts.startApp ? { startApp: opts.startApp } : {}),
  });
  if (!started.ok) throw new Error(started.message);
  return {
    ...withClients(h),
    host: started.host,
    async stop() {
      for (const c of h.clients) c.close();
      await started.host.stop('test over');
      process.env.PS1 = prev.PS1;
      process.env.ENV = prev.ENV;
      // A session's agent may still be writing into HOME as it ends (Claude Code does, on its way
      // out): removing it under them fails with ENOTEMPTY.
      await endProcessesWithHome(h.home);
      rmSync(h.home, { recursive: true, force: true });
    },
  };
}
