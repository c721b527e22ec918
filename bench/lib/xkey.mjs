// Keys through the real X input path (xdotool, XTEST), timed by wall clock so another process's
// log can be compared with them. The time xdotool takes to return (its start-up and the X round
// trip) is the reference beside each key-to-paint figure: the part no app can remove.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const wallNow = () => performance.timeOrigin + performance.now();

/** Sends one key or chord (xdotool syntax, e.g. "a", "ctrl+c"); returns when it was sent and
 *  when xdotool was done. */
export function xkey(display, key) {
  const sentAt = wallNow();
  spawnSync('xdotool', ['key', key], { env: { ...process.env, DISPLAY: display } });
  return { sentAt, doneAt: wallNow() };
}

/**
 * A persistent XTEST key sender (bench/native/xkeysend.c, compiled once per source version into
 * the build cache): each key is timed from just before it went to X, without xdotool's start-up
 * in the figure. null when gcc or the X headers (libx11-dev, libxtst-dev) are missing.
 */
export async function startKeySender(display) {
  const src = join(root, 'bench', 'native', 'xkeysend.c');
  const hash = createHash('sha256').update(readFileSync(src)).digest('hex').slice(0, 12);
  const dir = join(process.env.TERMIO_BUILD_CACHE || join(homedir(), '.cache', 'termio'), 'bench');
  const exe = join(dir, `xkeysend-${hash}`);
  if (!existsSync(exe)) {
    mkdirSync(dir, { recursive: true });
    const cc = spawnSync('gcc', ['-O2', src, '-o', exe, '-lX11', '-lXtst'], { encoding: 'utf8' });
    if (cc.status !== 0) return null;
  }
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
