// The bare X client beside the key → painted echo figures: bench/native/xecho.c, compiled once per
// source version into the build cache, started on a display; each key it paints is a wall-clock
// time (ms) on its stdout, comparable with xkey()'s sentAt.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A bench helper in bench/native compiled once per source version into the build cache: its path,
 * or { error } when gcc or the libraries' headers are missing.
 */
export function buildBenchNative(source, libs) {
  const src = join(root, 'bench', 'native', source);
  const hash = createHash('sha256').update(readFileSync(src)).digest('hex').slice(0, 12);
  const dir = join(process.env.TERMIO_BUILD_CACHE || join(homedir(), '.cache', 'termio'), 'bench');
  const exe = join(dir, `${source.replace(/\.c$/, '')}-${hash}`);
  if (existsSync(exe)) return { exe };
  mkdirSync(dir, { recursive: true });
  const cc = spawnSync('gcc', ['-O2', src, '-o', exe, ...libs], { encoding: 'utf8' });
  if (cc.status !== 0) return { error: `gcc failed (Linux: apt-get install gcc libx11-dev libxtst-dev): ${(cc.error?.message ?? cc.stderr).split('\n')[0]}` };
  return { exe };
}

/** The compiled bare X client's path, or { error }. */
export function buildXecho() {
  return buildBenchNative('xecho.c', ['-lX11']);
}

/** Starts the client on `display`; resolves once its window is mapped, with the times it painted. */
export async function startXecho(exe, display) {
  const proc = spawn(exe, [], { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', 'pipe', 'inherit'] });
  const painted = [];
  let buf = '';
  await new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`xecho exited with ${code}`)));
    proc.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const l of lines) {
        if (l === 'ready') resolve();
        else painted.push(Number(l));
      }
    });
  });
  return { painted, stop: () => proc.kill('SIGTERM') };
}
