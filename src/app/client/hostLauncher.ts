// Finding the session host, and starting it on first need: `termio` commands connect to
// $TERMIO_HOME/run/host.sock, and when nobody listens they start termio-host detached (its own
// session, no terminal, output to its own log) and wait for its socket.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { HOST_SOCKET_FILE } from '../../protocol/hostFraming';
import { HostClient, type HostConnectFailure } from './hostClient';
import { installPath, packageVersion } from '../services/install';
import { termioPaths } from '../services/paths';
import { sessionIdentity } from '../services/sessionSecret';

/** A host is listening within a few hundred ms of its start; 10 s covers a loaded machine. */
export const HOST_START_TIMEOUT_MS = 10_000;
/** How often a starting command retries the socket while the host comes up: it listens about
 *  200 ms after its start, so a handful of tries, not a busy loop. */
const HOST_START_POLL_MS = 50;
/** A host that found another one in place tries again no sooner than this: the other one is
 *  either up within a few polls or gone within its stop (under a second). */
const HOST_RESTART_RETRY_MS = 400;

export function hostSocketPath(env: NodeJS.ProcessEnv): string {
  return join(termioPaths(env).runDir, HOST_SOCKET_FILE);
}

/**
 * Set in a host process's environment by whoever starts it. Inside Termio.app the only Node is
 * qode, which preloads the app's entry (qode.json) into every process it runs: the entry sees this
 * and stays out of the way. The host removes it from its own environment at start.
 */
export const HOST_PROCESS_ENV = 'TERMIO_HOST_PROCESS';

/** Starts termio-host detached (its own session, no terminal), with this runtime's Node. */
export function spawnHost(env: NodeJS.ProcessEnv, stdio: 'ignore' | ['ignore', number, number]): ChildProcess {
  return spawn(process.execPath, [installPath('dist', 'app', 'host', 'hostMain.js')], {
    detached: true,
    stdio,
    env: { ...env, [HOST_PROCESS_ENV]: '1' },
    // A long-lived process should not keep the folder it happened to start in busy.
    cwd: '/',
  });
}

/**
 * Connects to the running host; with `start`, starts one first if none runs. A command run inside
 * a Termio session says so (its TERMIO_SESSION and secret), so the host can refuse it what needs
 * the user; the app (`asUser`) speaks for the user whatever its environment.
 */
export async function connectHost(
  env: NodeJS.ProcessEnv,
  opts: { client: string; start: boolean; asUser?: boolean },
): Promise<HostClient | HostConnectFailure> {
  const socket = hostSocketPath(env);
  const who = { client: opts.client, version: packageVersion(), ...(opts.asUser ? {} : sessionIdentity(env)) };
  const first = await HostClient.connect(socket, who);
  if (first instanceof HostClient || first.kind !== 'notRunning' || !opts.start) return first;
  let exited: number | null = null;
  let startedAt = 0;
  const start = (): void => {
    exited = null;
    startedAt = Date.now();
    const child = spawnHost(env, 'ignore');
    child.once('exit', (code) => (exited = code ?? 1));
    child.unref();
  };
  start();
  const deadline = Date.now() + HOST_START_TIMEOUT_MS;
  for (;;) {
    await new Promise((r) => setTimeout(r, HOST_START_POLL_MS));
    const c = await HostClient.connect(socket, who);
    if (c instanceof HostClient || c.kind !== 'notRunning') return c;
    // Exit 1 means another host holds the Termio home: either it is starting (its socket appears
    // on the next tries) or it is on its way out (a restart), and then this one starts again.
    if (exited === 1 && Date.now() <= deadline) {
      if (Date.now() - startedAt >= HOST_RESTART_RETRY_MS) start();
      continue;
    }
    if ((exited !== null && exited !== 1) || Date.now() > deadline) {
      const log = join(termioPaths(env).logsDir, 'host.log');
      return {
        kind: 'failed',
        message:
          exited !== null
            ? `termio-host exited with code ${exited} before listening (see ${log})`
            : `termio-host did not listen on ${socket} within ${HOST_START_TIMEOUT_MS} ms (see ${log})`,
      };
    }
  }
}
