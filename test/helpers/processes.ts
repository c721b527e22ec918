// Whether a process is still running, for tests that check what a close or a quit leaves behind,
// and the processes a test started under its temporary HOME (found by their environment, so even
// a daemon that left the session's process group, like Codex's `app-server`, is found).
import { readdirSync, readFileSync } from 'node:fs';
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

/** Running processes whose environment has HOME=home (Linux /proc; other users' are unreadable and skipped). */
export function processesWithHome(home: string): number[] {
  const wanted = `HOME=${home}`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(wanted) && isAlive(Number(name))) found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** How long ending a HOME's processes may take in all: a daemon's supervisor may start it again
 *  while we look, and a loaded machine is slow to reap; well under a test's own bound. */
const END_WITH_HOME_TIMEOUT_MS = 30_000;

/**
 * Ends every process that runs with this HOME (SIGKILL: a test's leftovers get no grace) and
 * waits until they are gone: round after round until two looks in a row find none (a killed
 * parent's children may be forking, and Codex's update loop restarts its daemon), or it throws
 * naming what is left once the time is up.
 */
export async function endProcessesWithHome(home: string, timeoutMs = END_WITH_HOME_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let clearLooks = 0;
  while (clearLooks < 2) {
    const left = processesWithHome(home);
    if (left.length === 0) {
      clearLooks++;
      continue;
    }
    clearLooks = 0;
    if (Date.now() > deadline) throw new Error(`processes with HOME=${home} still run after ${timeoutMs} ms: ${left.join(', ')}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await waitFor(() => left.every((pid) => !isAlive(pid)), {
      what: `processes ${left.join(', ')} with HOME=${home} to end`,
      timeout: Math.max(1_000, deadline - Date.now()),
    });
  }
}
