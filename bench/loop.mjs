#!/usr/bin/env node
// Event-loop bridge benchmark: is the Qt ↔ libuv bridge event-driven?
//  (a) CPU used by the idle Termio app (its empty window, no session; the session host it starts
//      is not counted) over N seconds vs an idle plain Node process (target < 1 % of a core), and
//      how often its main thread wakes meanwhile (voluntary context switches per second)
//  (b) lateness of a 10 ms Node timer while Qt handles a key-event flood, and of a 10 ms Qt timer
//      while Node handles a pipe flood, vs a plain-Node timer under the same flood (target p99 < 5 ms)
//  (c) RSS of the window showing one shell (the shell in the session host), next to the same app
//      with Qt's GLX integration allowed (QT_XCB_GL_INTEGRATION=xcb_glx), which Termio turns off
//      (target ≤ 150 MB)
//  (d) the bridge's own loop passes in an idle second and page faults per read of a pipe flood,
//      from the probe test/e2e/qtRuntime.test.ts runs (test/fixtures/qtRuntimeProbe.js); no target
//      here, the test holds them under 10 passes a second and 8 faults a read
// Run after `npm run build`: node bench/loop.mjs [--idle-seconds 30]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';
import { cpuSeconds } from './lib/cpu.mjs';
import { startXvfb } from './lib/xvfb.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const idleSeconds = Number(process.argv[process.argv.indexOf('--idle-seconds') + 1]) || 30;

/** Times the main thread went to sleep and was woken (its voluntary context switches). */
function wakeups(pid) {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8').match(/^voluntary_ctxt_switches:\s*(\d+)/m)[1]);
}

async function idleCpu(command, args, env) {
  const child = spawn(command, args, { env, stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 3000)); // let start-up work finish before measuring
  const t0 = cpuSeconds(child.pid);
  const k0 = wakeups(child.pid);
  const w0 = Date.now();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const used = cpuSeconds(child.pid) - t0;
  const woke = wakeups(child.pid) - k0;
  const wall = (Date.now() - w0) / 1000;
  child.kill('SIGTERM');
  return { cpu: (100 * used) / wall, wakeupsPerSecond: woke / wall };
}

/** The app's RSS once its window shows one shell: started, a shell spawned, settled 3 s. */
async function windowRss(env) {
  const app = spawn(process.execPath, [join(root, 'dist', 'app', 'main.js')], { env, stdio: 'ignore' });
  const termio = (...args) => spawnSync(join(root, 'bin', 'termio'), args, { env, encoding: 'utf8' });
  const end = Date.now() + 30_000;
  while (termio('sessions', 'list').status !== 0) {
    if (Date.now() > end) throw new Error('the app did not answer');
    await new Promise((r) => setTimeout(r, 100));
  }
  const id = termio('sessions', 'spawn', '--cwd', env.HOME).stdout.trim();
  termio('sessions', 'focus', id);
  await new Promise((r) => setTimeout(r, 3000)); // its frames painted, start-up garbage collected
  const rss = Number(readFileSync(`/proc/${app.pid}/status`, 'utf8').match(/^VmRSS:\s*(\d+) kB/m)[1]) * 1024;
  app.kill('SIGTERM');
  await new Promise((r) => app.once('exit', r));
  termio('host', 'stop');
  return rss;
}

function probe(mode, env) {
  const r = spawnSync(process.execPath, [join(root, 'bench', 'loopProbe.cjs'), mode], { env, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`probe ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const xvfb = process.env.DISPLAY ? null : await startXvfb('1280x800x24');
const display = process.env.DISPLAY ?? xvfb.display;
const home = mkdtempSync(join(tmpdir(), 'termio-bench-'));
const env = { ...process.env, DISPLAY: display, HOME: home, TERMIO_HOME: join(home, '.termio'), XDG_RUNTIME_DIR: home };
benchStart('bench/loop.mjs');
try {
  console.log(`Event-loop bridge (idle window ${idleSeconds} s; timers 10 ms, 300 samples)`);
  const [appCpu, nodeCpu] = await Promise.all([
    idleCpu(process.execPath, [join(root, 'dist', 'app', 'main.js')], env),
    idleCpu(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], env),
  ]);
  console.log(
    `  idle CPU, Termio app (empty window, host not counted)   ${appCpu.cpu.toFixed(2)} % of one core, main thread woke ${appCpu.wakeupsPerSecond.toFixed(1)}/s   target < 1 % ${target('idle app CPU < 1 %', appCpu.cpu < 1)}`,
  );
  console.log(
    `  idle CPU, plain Node (reference)                         ${nodeCpu.cpu.toFixed(2)} % of one core, main thread woke ${nodeCpu.wakeupsPerSecond.toFixed(1)}/s`,
  );
  const qt = probe('qt', env);
  const plain = probe('node', env);
  const fmt = (s) => `p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  max ${s.max.toFixed(2)} ms`;
  console.log(
    `  Node 10 ms timer lateness, Qt busy with ${qt.keyEventsHandled} key events   ${fmt(qt.nodeTimer)}   target p99 < 5 ms ${target('Node timer p99 < 5 ms with Qt busy', qt.nodeTimer.p99 < 5)}`,
  );
  console.log(
    `  Qt 10 ms timer lateness, Node busy with a pipe flood   ${fmt(qt.qtTimer)}   target p99 < 5 ms ${target('Qt timer p99 < 5 ms with Node busy', qt.qtTimer.p99 < 5)}`,
  );
  console.log(`  plain Node 10 ms timer lateness, same pipe flood       ${fmt(plain.nodeTimer)}   (reference)`);
  const rss = await windowRss(env);
  const rssGlx = await windowRss({ ...env, QT_XCB_GL_INTEGRATION: 'xcb_glx' });
  const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  console.log(`  RSS, window with one shell   ${mb(rss)}   target ≤ 150 MB ${target('window with one shell RSS ≤ 150 MB', rss <= 150 * 1024 * 1024)}`);
  console.log(`  RSS, the same with Qt's GLX integration allowed   ${mb(rssGlx)}   (reference)`);
  const bridge = JSON.parse(
    spawnSync(process.execPath, [join(root, 'test', 'fixtures', 'qtRuntimeProbe.js')], { env, encoding: 'utf8', timeout: 60_000 })
      .stdout.trim()
      .split('\n')
      .at(-1),
  );
  console.log(
    `  the bridge's loop passes in an idle second: ${bridge.idleWakeupsPerSecond}; page faults per 64 KB read of a pipe flood: ${bridge.flood.faultsPerRead} (${bridge.flood.reads} reads)   (no target here; a 1 ms poll would pass ~1000 times, glibc's default trimming faulted most buffers' 16 pages back in)`,
  );
} finally {
  // Quitting the app leaves its session host up: end it before its HOME goes.
  spawnSync(join(root, 'bin', 'termio'), ['host', 'stop'], { env, stdio: 'ignore' });
  xvfb?.stop();
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = benchEnd();
