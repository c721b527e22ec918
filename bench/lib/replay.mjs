#!/usr/bin/env node
// Replays a recorded agent TUI (asciicast v2, gzipped: bench/recordings) on its terminal at the
// pace it was recorded, over and over: each write waits the time between it and the one before,
// so a replay stopped (SIGSTOP) and continued goes on where it was rather than bursting to catch
// up. The terminal is put in raw mode and what it sends (answers to the recording's queries, keys)
// is read and dropped, so nothing is echoed into the screen.
// Usage: node bench/lib/replay.mjs <file.cast.gz> <start seconds into the recording>
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const [file, startAt = '0'] = process.argv.slice(2);
const lines = gunzipSync(readFileSync(file)).toString('utf8').trim().split('\n');
const events = lines.slice(1).map((l) => JSON.parse(l));
const duration = events.at(-1)[0];
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', () => undefined);

let i = events.findIndex((e) => e[0] >= Number(startAt) % duration);
if (i < 0) i = 0;
const next = () => {
  process.stdout.write(events[i][2]);
  const t = events[i][0];
  i = (i + 1) % events.length;
  // From the last write back to the first: a second's pause, as between two turns.
  const wait = i === 0 ? 1000 : (events[i][0] - t) * 1000;
  setTimeout(next, wait);
};
next();
