// Child process for bench/loop.mjs: measures timer lateness on one thread that runs both loops.
//   node bench/loopProbe.cjs qt   → Qt runtime up; reports Node-timer lateness while Qt handles a
//                                   flood of key events, and Qt-timer lateness while Node handles
//                                   a flood of pipe data
//   node bench/loopProbe.cjs node → plain Node, no Qt: Node-timer lateness under the same pipe flood
'use strict';
const { join } = require('path');
const { spawn } = require('child_process');

const mode = process.argv[2];
const SAMPLES = 300; // 300 × 10 ms ≈ 3 s per figure: enough for a stable p99
const TIMER_MS = 10;
const WORK_PER_EVENT_MS = 0.5; // each input event costs a little JS work, as a real handler would

function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function summary(xs) {
  return { p50: +percentile(xs, 50).toFixed(2), p99: +percentile(xs, 99).toFixed(2), max: +Math.max(...xs).toFixed(2), n: xs.length };
}

function nodeTimerLateness() {
  return new Promise((resolve) => {
    const late = [];
    const tick = () => {
      const due = performance.now() + TIMER_MS;
      setTimeout(() => {
        late.push(performance.now() - due);
        if (late.length < SAMPLES) tick();
        else resolve(summary(late));
      }, TIMER_MS);
    };
    tick();
  });
}

// Node-side input: a child floods a pipe; each chunk costs WORK_PER_EVENT_MS of JS.
function startPipeFlood() {
  const child = spawn(
    process.execPath,
    ['-e', 'const b=Buffer.alloc(4096,120);(function w(){while(process.stdout.write(b));process.stdout.once("drain",w)})()'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  child.stdout.on('data', () => busy(WORK_PER_EVENT_MS));
  return () => child.kill('SIGKILL');
}

async function main() {
  if (mode === 'node') {
    const stop = startPipeFlood();
    const nodeTimer = await nodeTimerLateness();
    stop();
    process.stdout.write(JSON.stringify({ nodeTimer }) + '\n');
    process.exit(0);
  }
  const { startQtRuntime } = require(join(__dirname, '..', 'dist', 'app', 'platform'));
  const runtime = startQtRuntime('termio-bench');
  const ng = require('@nodegui/nodegui');
  const win = new ng.QWidget();
  win.setWindowTitle('loop-bench');
  win.resize(200, 100);
  win.show();
  globalThis.keepAlive = win; // NodeGUI widgets die with their JS wrapper
  let keys = 0;
  win.addEventListener(ng.WidgetEventTypes.KeyPress, () => {
    keys++;
    busy(WORK_PER_EVENT_MS);
  });
  // Qt-side input: real X key events from xdotool, typed into the window as fast as it goes.
  const typer = spawn('xdotool', ['search', '--sync', '--name', '^loop-bench$', 'windowfocus', '--sync', 'type', '--delay', '1', 'a'.repeat(20000)], {
    stdio: 'ignore',
  });
  await new Promise((r) => {
    const wait = () => (keys > 0 ? r() : setTimeout(wait, 5));
    wait();
  });
  const nodeTimer = await nodeTimerLateness();
  typer.kill('SIGKILL');
  // Key events already queued in the X server keep arriving after xdotool is gone; measure the
  // Qt timer against the Node flood alone, once they have drained (no key for 300 ms).
  await new Promise((r) => {
    let seen = keys;
    const check = () => (keys === seen ? r() : ((seen = keys), setTimeout(check, 300)));
    setTimeout(check, 300);
  });

  const stop = startPipeFlood();
  const qtTimer = await new Promise((resolve) => {
    const late = [];
    const obj = new ng.QWidget();
    // Lateness against the timer's own cadence: tick k is due at t0 + k × interval. Measured
    // from the previous tick instead, a timer that drifts a little every tick would look on time.
    let tick = 0;
    const t0 = performance.now();
    obj.addEventListener(ng.WidgetEventTypes.Timer, () => {
      tick++;
      late.push(performance.now() - (t0 + tick * TIMER_MS));
      if (late.length >= SAMPLES) {
        obj.deleteLater(); // never delete an object inside its own event handler
        resolve(summary(late));
      }
    });
    obj.startTimer(TIMER_MS, 0 /* Qt::PreciseTimer */);
  });
  stop();
  process.stdout.write(JSON.stringify({ nodeTimer, qtTimer, keyEventsHandled: keys }) + '\n');
  runtime.stop();
  process.exit(0);
}

main();
