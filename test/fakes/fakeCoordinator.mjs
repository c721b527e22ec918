#!/usr/bin/env node
// A stand-in for an agent that drives other agents, for tests of what is typed into it: it speaks
// Gemini CLI's titles (◇ ready, ✦ working), so the host reads its state from them, and records
// every line it reads, with the time and whether it was working then, as one JSON line in
// $FAKE_INPUT_LOG; the moments it starts and stops working are recorded there too. Input:
//   a line with "hold" → works until the file $FAKE_RELEASE exists, then is ready again
//   /exit              → exits 0
//   any other line     → works for a short while, prints "ok", is ready again
import { appendFileSync, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

if (process.argv[2] === '--version' || process.argv[2] === '--help') {
  process.stdout.write('Gemini CLI - Defaults to interactive mode.\n');
  process.exit(0);
}
const log = (entry) => process.env.FAKE_INPUT_LOG && appendFileSync(process.env.FAKE_INPUT_LOG, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);
let working = false;
const title = (t) => process.stdout.write(`\x1b]0;${t}\x07`);

function work(until, then) {
  working = true;
  log({ event: 'working' });
  title('✦  Working… (app)');
  const beat = setInterval(() => {
    if (!until()) return;
    clearInterval(beat);
    working = false;
    log({ event: 'ready' });
    process.stdout.write(`${then}\r\n> `);
    title('◇  Ready (app)');
  }, 50);
}

title('◇  Ready (app)');
process.stdout.write('fake coordinator ready\r\n> ');
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  log({ line, working });
  if (line.trim() === '/exit') process.exit(0);
  if (working) return;
  if (line.includes('hold')) return work(() => existsSync(process.env.FAKE_RELEASE ?? ''), 'released');
  const end = Date.now() + 300;
  work(() => Date.now() >= end, 'ok');
});
rl.on('close', () => process.exit(0));
