// Keys through the real X input path (xdotool, XTEST), timed by wall clock so another process's
// log can be compared with them. The time xdotool takes to return (its start-up and the X round
// trip) is the reference beside each key-to-paint figure: the part no app can remove.
import { spawnSync } from 'node:child_process';

export const wallNow = () => performance.timeOrigin + performance.now();

/** Sends one key or chord (xdotool syntax, e.g. "a", "ctrl+c"); returns when it was sent and
 *  when xdotool was done. */
export function xkey(display, key) {
  const sentAt = wallNow();
  spawnSync('xdotool', ['key', key], { env: { ...process.env, DISPLAY: display } });
  return { sentAt, doneAt: wallNow() };
}
