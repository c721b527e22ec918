// A private X server for a benchmark, found through -displayfd so it never collides with
// another display. Resolves with its name and a stop function.
import { spawn } from 'node:child_process';

export async function startXvfb(size = '1400x900x24') {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp', '-noreset'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const num = await new Promise((resolve, reject) => {
    let out = '';
    proc.once('error', reject);
    proc.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  return { display: `:${num}`, pid: proc.pid, stop: () => proc.kill('SIGTERM') };
}
