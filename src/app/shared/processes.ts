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
