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

/** Ends every process that runs with this HOME (SIGKILL: a test's leftovers get no grace) and waits until they are gone. */
export async function endProcessesWithHome(home: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const left = processesWithHome(home);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // A killed parent's children may be forking right now: look again until a round finds none.
    await waitFor(() => left.every((pid) => !isAlive(pid)), { what: `processes ${left.join(', ')} with HOME=${home} to end`, timeout: 5_000 });
  }
}
