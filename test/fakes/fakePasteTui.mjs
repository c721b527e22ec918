#!/usr/bin/env node
// A stand-in for a TUI that guesses pastes the way Codex does: it turns bracketed paste (mode
// 2004) on, reads the terminal raw, and submits its composer only on a Return that arrives on its
// own. A Return in the same read as other typed characters is taken as part of a paste (a newline
// in the composer), as is every Return inside ESC[200~ … ESC[201~. Each submit prints
// "submitted: <composer, newlines as ⏎>"; the composer is redrawn after every change as
// "composer: …". `--no-paste-mode` leaves mode 2004 off (a plain line editor).
const pasteMode = !process.argv.includes('--no-paste-mode');
if (process.stdin.isTTY) process.stdin.setRawMode(true);
if (pasteMode) process.stdout.write('\x1b[?2004h');
process.stdout.write('ready>\r\n');

let composer = '';
let inPaste = false;
const show = () => process.stdout.write(`\r\x1b[Kcomposer: ${composer.replace(/\r/g, '⏎')}`);

process.stdin.on('data', (buf) => {
  let chunk = buf.toString('utf8');
  // A read holding only a Return is the user pressing Return.
  if (chunk === '\r' && !inPaste) {
    process.stdout.write(`\r\n\x1b[Ksubmitted: ${composer.replace(/\r/g, '⏎')}\r\n`);
    composer = '';
    show();
    return;
  }
  if (chunk === '\x04') process.exit(0);
  while (chunk.length) {
    if (inPaste) {
      const end = chunk.indexOf('\x1b[201~');
      composer += end < 0 ? chunk : chunk.slice(0, end);
      if (end < 0) break;
      inPaste = false;
      chunk = chunk.slice(end + 6);
      continue;
    }
    const start = chunk.indexOf('\x1b[200~');
    composer += start < 0 ? chunk : chunk.slice(0, start);
    if (start < 0) break;
    inPaste = true;
    chunk = chunk.slice(start + 6);
  }
  show();
});
