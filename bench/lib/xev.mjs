// A bare X client as a benchmark reference: xev in its own window, noting the wall-clock time it
// prints each KeyPress. What the X input path and xdotool's start-up cost without any app.
import { spawn, spawnSync } from 'node:child_process';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const wallNow = () => performance.timeOrigin + performance.now();

export async function startXev(display) {
  const env = { ...process.env, DISPLAY: display };
  // Line-buffered: into a pipe xev's stdout would otherwise be flushed only when a buffer fills.
  const xev = spawn('stdbuf', ['-oL', 'xev', '-event', 'keyboard', '-geometry', '200x100+0+0'], { env });
  let out = '';
  const presses = [];
  const waiters = [];
  xev.stdout.on('data', (d) => {
    out += d.toString();
    const n = (out.match(/^KeyPress event/gm) ?? []).length;
    while (presses.length < n) {
      presses.push(wallNow());
      waiters.splice(0).forEach((w) => w(presses[presses.length - 1]));
    }
  });
  let win = '';
  for (let tries = 0; !win; tries++) {
    if (tries > 200) throw new Error('xev did not open its window');
    win = spawnSync('xdotool', ['search', '--onlyvisible', '--name', '^Event Tester$'], { env, encoding: 'utf8' }).stdout.trim().split('\n')[0];
    if (!win) await sleep(50);
  }
  return {
    win,
    /** Wall-clock times of every KeyPress so far (a chord such as ctrl+Next is two). */
    presses,
    /** Resolves with the time of the next KeyPress. */
    nextPress: () => new Promise((r) => waiters.push(r)),
    stop: () => xev.kill('SIGTERM'),
  };
}
