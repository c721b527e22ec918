// Whether a process is still running, for tests that check what a close or a quit leaves behind.
import { readFileSync } from 'node:fs';
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
