// Whether a process id is in use: signal 0 checks without sending anything. EPERM means the
// process exists but belongs to someone else, so it counts as alive.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long quitting waits for agents to exit after the hangup before it kills them: well within
 *  the 2 s an app quit may take, and long enough for an agent to flush its transcript. */
export const QUIT_GRACE_MS = 800;

/** Waits until every pid is gone or the grace has passed, then SIGKILLs what is left. */
export async function endProcesses(pids: number[], graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  let left = pids.filter(isProcessAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = left.filter(isProcessAlive);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It went away on its own.
    }
  }
}
