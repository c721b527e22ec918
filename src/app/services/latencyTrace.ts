// Where a keystroke's echo spends its time, hop by hop: with TERMIO_LATENCY_TRACE=<file> in its
// environment, each process (the app, termio-host) appends "<point> <wall ms> <pid>" lines to that
// file for the points below, and bench/visible.mjs prints the time between consecutive points of
// each key. Off (the variable unset) a point costs one comparison. The lines are buffered and
// written a second later, off the path being measured.
import { appendFileSync } from 'node:fs';

/** The points, in the order an echo passes them. */
export const LATENCY_POINTS = [
  'key', // the app's key handler runs (after X and Qt)
  'keySent', // the app wrote the key to the host's socket
  'keyIn', // the host read it
  'keyOut', // the host wrote the encoded key to the session's holder
  'parsed', // the host's emulator parsed the echo (the holder's round trip through the shell before it)
  'frameOut', // the host wrote the frame to the app
  'frameIn', // the app read it
  'paint', // the app's frame pacer began the paint (the "frame painted" log entry ends it)
] as const;
export type LatencyPoint = (typeof LATENCY_POINTS)[number];

const file = process.env.TERMIO_LATENCY_TRACE || null;
const WRITE_AFTER_MS = 1000;
let lines: string[] = [];
let writer: NodeJS.Timeout | null = null;

function write(): void {
  writer = null;
  const out = lines;
  lines = [];
  try {
    appendFileSync(file!, `${out.join('\n')}\n`);
  } catch {
    // A trace is a diagnostic: a file that cannot be written loses the trace, nothing else.
  }
}

/** Records that a keystroke's echo reached `point` (only while tracing). */
export function traceLatency(point: LatencyPoint): void {
  if (file === null) return;
  lines.push(`${point} ${(performance.timeOrigin + performance.now()).toFixed(3)} ${process.pid}`);
  if (writer) return;
  writer = setTimeout(write, WRITE_AFTER_MS);
  writer.unref();
}

if (file !== null) process.once('exit', () => lines.length > 0 && write());
