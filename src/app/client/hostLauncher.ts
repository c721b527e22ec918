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

/**
 * glibc's allocator settings for the host process, which glibc reads once, as a process starts
 * (other C libraries ignore them). Idle with one shell they save ~5 MB of its ~60 (bench/visible.mjs):
 * - blocks of 32 KB and more are mapped on their own and unmapped when freed, instead of staying
 *   in the heap for good (V8's compiler zones, cut-up read buffers);
 * - two arenas, not eight per core: the arena a V8 helper thread allocated in keeps what it freed.
 * Throughput under floods did not change measurably (bench/visible.mjs, alternating runs).
 */
export const HOST_ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_ARENA_MAX: '2' };
/** Names which of HOST_ALLOCATOR_ENV the starter added, so the host removes only those. */
const HOST_ALLOCATOR_ADDED = 'TERMIO_HOST_ALLOCATOR';

/** The environment a host process starts with: the starter's, marked, with the allocator settings
 *  the starter did not set itself. */
export function hostProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const added = Object.keys(HOST_ALLOCATOR_ENV).filter((k) => env[k] === undefined);
  const allocator = Object.fromEntries(added.map((k) => [k, HOST_ALLOCATOR_ENV[k]]));
  return { ...env, ...allocator, [HOST_PROCESS_ENV]: '1', ...(added.length ? { [HOST_ALLOCATOR_ADDED]: added.join(',') } : {}) };
}

/** Run by the host at start: what only its own process was to see leaves the environment its
 *  sessions, holders and agents inherit. A setting the user made stays. */
export function dropHostProcessEnv(env: NodeJS.ProcessEnv): void {
  delete env[HOST_PROCESS_ENV];
  for (const k of (env[HOST_ALLOCATOR_ADDED] ?? '').split(',')) if (k in HOST_ALLOCATOR_ENV) delete env[k];
  delete env[HOST_ALLOCATOR_ADDED];
}

/** Starts termio-host detached (its own session, no terminal), with this runtime's Node. */
export function spawnHost(env: NodeJS.ProcessEnv, stdio: 'ignore' | ['ignore', number, number]): ChildProcess {
  return spawn(process.execPath, [installPath('dist', 'app', 'host', 'hostMain.js')], {
    detached: true,
    stdio,
    env: hostProcessEnv(env),
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
