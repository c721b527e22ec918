#!/usr/bin/env node
// A stand-in for an agent blocked on a permission menu, drawn the way Claude Code draws one
// (`❯ 1. Yes` … "Esc to cancel"), in raw mode like a real TUI: ↑/↓ move the highlight, Return
// chooses it, a digit chooses that option, Esc cancels. It prints what it received
// ("received: Yes") and, after each answer, asks the next question of its list; SIGUSR1 swaps the
// question on screen for the next one unanswered (a question that changed under a reader).
// FAKE_MENU_LOOP=1 asks its questions round and round (the benchmark answers hundreds).
// FAKE_MENU_DEAF=N drops the first N keys unseen, as Claude Code drops keys that come just after
// its menu appeared or its event loop stalled.
const questions = [
  {
    context: ['Bash command', '', '  rm -rf build/cache', '  Remove the build cache'],
    ask: 'Do you want to proceed?',
    options: ['Yes', "Yes, and don't ask again for rm commands", 'No'],
  },
  { context: ['Edit file', '', '  src/app.ts'], ask: 'Do you want to make this edit to app.ts?', options: ['Yes', 'No'] },
  { context: ['Bash command', '', '  npm publish'], ask: 'Do you want to proceed?', options: ['Yes', 'No'] },
];
let q = 0;
let highlight = 0;
const out = (s) => process.stdout.write(s);

function draw() {
  const cur = questions[q];
  out('\x1b[2J\x1b[H');
  if (!cur) {
    out('all answered\r\n> ');
    return;
  }
  out(`${'─'.repeat(60)}\r\n`);
  for (const l of cur.context) out(` ${l}\r\n`);
  out(`\r\n ${cur.ask}\r\n`);
  cur.options.forEach((o, i) => out(` ${i === highlight ? '❯' : ' '} ${i + 1}. ${o}\r\n`));
  out('\r\n Esc to cancel\r\n');
}

function choose(i) {
  const cur = questions[q];
  if (!cur) return;
  out(`\x1b[2J\x1b[Hreceived: ${cur.options[i] ?? 'cancel'}\r\n`);
  // Like the real agent, the answer is acted on before the next question comes.
  setTimeout(() => {
    q = process.env.FAKE_MENU_LOOP === '1' ? (q + 1) % questions.length : q + 1;
    highlight = 0;
    draw();
  }, 300);
  process.stderr.write(`received: ${cur.options[i] ?? 'cancel'}\n`);
}

let deaf = Number(process.env.FAKE_MENU_DEAF ?? 0);
process.stdin.setRawMode?.(true);
process.stdin.on('data', (buf) => {
  let s = buf.toString('latin1');
  if (deaf > 0) {
    // Keys, not reads: two sent apart may arrive in one read on a loaded machine.
    // eslint-disable-next-line no-control-regex -- arrow keys are escape sequences
    const keys = s.match(/\x1b\[[A-Z]|\x1bO[A-Z]|[\s\S]/g) ?? [];
    const dropped = keys.splice(0, deaf);
    deaf -= dropped.length;
    process.stderr.write(`dropped: ${JSON.stringify(dropped.join(''))}\n`);
    s = keys.join('');
    if (!s) return;
  }
  const cur = questions[q];
  if (!cur) return;
  if (s === '\x1b[A' || s === '\x1bOA') highlight = Math.max(0, highlight - 1);
  else if (s === '\x1b[B' || s === '\x1bOB') highlight = Math.min(cur.options.length - 1, highlight + 1);
  else if (s === '\r') return choose(highlight);
  else if (s === '\x1b') return choose(-1);
  else if (/^[1-9]$/.test(s) && Number(s) <= cur.options.length) return choose(Number(s) - 1);
  else if (s.includes('\r')) {
    // Several keys in one read (arrows then Return): applied in order.
    // eslint-disable-next-line no-control-regex -- arrow keys are escape sequences
    for (const m of s.matchAll(/\x1b\[[AB]|\x1bO[AB]|\r/g)) {
      if (m[0] === '\r') return choose(highlight);
      highlight = m[0].endsWith('A') ? Math.max(0, highlight - 1) : Math.min(cur.options.length - 1, highlight + 1);
    }
  }
  draw();
});
process.on('SIGUSR1', () => {
  q++;
  highlight = 0;
  draw();
});
process.on('SIGHUP', () => process.exit(0));
out('\x1b]0;fake menu agent\x07');
draw();
