// Every bench's verdict: the load the machine was under (os.loadavg, printed at the start and the
// end, since figures on shared cores move with it), each target checked by name, and the exit
// status: non-zero when any target was missed, so `npm run bench` and CI see a regression.
import { cpus, loadavg } from 'node:os';

const misses = [];

/** "load average 1.23 0.98 0.80 on 2 cores", for the figures' conditions. */
export function loadLine() {
  return `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}

export function benchStart(name) {
  console.log(`${name}: ${loadLine()} at start`);
}

/** Records a target's outcome under its name; returns the word to print beside the figure. */
export function target(name, met) {
  if (!met) misses.push(name);
  return met ? 'met' : 'MISSED';
}

/** Prints the load at the end and the missed targets; returns the exit status (1 when any was missed). */
export function benchEnd() {
  console.log(`\n${loadLine()} at end`);
  if (misses.length === 0) {
    console.log('every target met');
    return 0;
  }
  console.log(`MISSED ${misses.length} target(s): ${misses.join('; ')}`);
  return 1;
}
