// Whether a process is still running, for tests that check what a close or a quit leaves behind,
// and the processes a test started under its temporary HOME (found by their environment, so even
// a daemon that left the session's process group, like Codex's `app-server`, is found).
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { waitFor } from './waitFor';

/** Running: the pid exists and is not a zombie (a zombie has exited and only awaits its parent). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** Waits until the process has exited. */
export async function waitForExit(pid: number, what = `pid ${pid} to end`, timeout?: number): Promise<void> {
  await waitFor(() => !isAlive(pid), { what, ...(timeout !== undefined ? { timeout } : {}) });
}

/** Running processes (not this one) that `match` accepts, given each one's environment and pid
 *  (Linux /proc; a process that ends meanwhile, or that `match` cannot read, is skipped). */
export function processesWhere(match: (env: string[], pid: number) => boolean): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (match(readFileSync(`/proc/${name}/environ`, 'latin1').split('\0'), Number(name)) && isAlive(Number(name))) found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Running processes whose environment has HOME=home. */
export function processesWithHome(home: string): number[] {
  const wanted = `HOME=${home}`;
  return processesWhere((env) => env.includes(wanted));
}

/** The paths of the Unix sockets these processes hold that are bound to a name (Linux /proc). */
function boundSockets(pids: number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  const paths = new Set<string>();
  if (inodes.size === 0) return [];
  // "Num RefCount Protocol Flags Type St Inode Path"; abstract names start with @.
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && inodes.has(f[6]!) && f[7]!.startsWith('/')) paths.add(f[7]!);
  }
  return [...paths];
}

/** How long ending a test's processes may take in all: a daemon's supervisor may start it again
 *  while we look, and a loaded machine is slow to reap; well under a test's own bound. */
const END_PROCESSES_TIMEOUT_MS = 30_000;

/**
 * Ends every process `match` accepts (SIGKILL: a test's leftovers get no grace) and waits until
 * they are gone: round after round until two looks in a row find none (a killed parent's children
 * may be forking, and Codex's update loop restarts its daemon), or it throws naming what is left
 * once the time is up. `what` names them in that message. The sockets they had bound are removed
 * with them, and a `.lock` beside each (Codex's daemon leaves both in /tmp/codex-daemon-<uid>).
 */
export async function endProcessesWhere(match: (env: string[], pid: number) => boolean, what: string, timeoutMs = END_PROCESSES_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const sockets = new Set<string>();
  let clearLooks = 0;
  while (clearLooks < 2) {
    const left = processesWhere(match);
    if (left.length === 0) {
      clearLooks++;
      continue;
    }
    clearLooks = 0;
    if (Date.now() > deadline) throw new Error(`${what} still run after ${timeoutMs} ms: ${left.join(', ')}`);
    for (const path of boundSockets(left)) sockets.add(path);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await waitFor(() => left.every((pid) => !isAlive(pid)), {
      what: `${what} (${left.join(', ')}) to end`,
      timeout: Math.max(1_000, deadline - Date.now()),
    });
  }
  for (const path of sockets) {
    rmSync(path, { force: true });
    rmSync(`${path}.lock`, { force: true });
  }
}

/** Ends every process that runs with this HOME, as endProcessesWhere. */
export function endProcessesWithHome(home: string, timeoutMs = END_PROCESSES_TIMEOUT_MS): Promise<void> {
  const wanted = `HOME=${home}`;
  return endProcessesWhere((env) => env.includes(wanted), `processes with HOME=${home}`, timeoutMs);
}
