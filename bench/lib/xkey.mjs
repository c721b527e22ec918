// Keys through the real X input path, timed by wall clock so another process's log can be compared
// with them: xkey() runs xdotool once per key (its start-up, ~15-20 ms, is in each figure);
// startKeySender() keeps one XTEST sender running and times each key from when it went to X.
import { spawn, spawnSync } from 'node:child_process';
import { buildBenchNative } from './xecho.mjs';

export const wallNow = () => performance.timeOrigin + performance.now();

/** Sends one key or chord (xdotool syntax, e.g. "a", "ctrl+c"); returns when it was sent and
 *  when xdotool was done. */
export function xkey(display, key) {
  const sentAt = wallNow();
  spawnSync('xdotool', ['key', key], { env: { ...process.env, DISPLAY: display } });
  return { sentAt, doneAt: wallNow() };
}

/**
 * A persistent XTEST key sender (bench/native/xkeysend.c, built by buildBenchNative): each key is timed from just before it went to X, without xdotool's start-up
 * in the figure. null when gcc or the X headers (libx11-dev, libxtst-dev) are missing.
 */
export async function startKeySender(display) {
  const built = buildBenchNative('xkeysend.c', ['-lX11', '-lXtst']);
  if (!built.exe) return null;
  const exe = built.exe;
  const proc = spawn(exe, [], { env: { ...process.env, DISPLAY: display }, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  let ready;
  const started = new Promise((r) => (ready = r));
  let buf = '';
  proc.stdout.on('data', (d) => {
    buf += d;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const l of lines) {
      if (l === 'ready') ready();
      else waiting.shift()?.(l);
    }
  });
  await started;
  return {
    /** Sends one key or chord ("a", "ctrl+c"); resolves with when it was sent and when X had it. */
    send(key) {
      return new Promise((resolve, reject) => {
        waiting.push((line) => {
          if (line.startsWith('error')) return reject(new Error(`xkeysend: ${line}`));
          const [sentAt, syncedAt] = line.split(' ').map(Number);
          resolve({ sentAt, doneAt: syncedAt });
        });
        proc.stdin.write(`${key}\n`);
      });
    },
    stop: () => proc.kill('SIGTERM'),
  };
}
