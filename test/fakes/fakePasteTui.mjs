#!/usr/bin/env node
// A stand-in for a TUI that guesses pastes the way Codex does: it turns bracketed paste (mode
// 2004) on, reads the terminal raw, and submits its composer only on a Return that arrives on its
// own. A Return in the same read as other typed characters is taken as part of a paste (a newline
// in the composer), as is every Return inside ESC[200~ … ESC[201~. Each submit prints
// "submitted: <composer, newlines as ⏎>"; the composer is redrawn after every change as
// "composer: …". `--no-paste-mode` leaves mode 2004 off (a plain line editor). `--stall-ms N`
// reads nothing for its first N ms after drawing (a TUI starved of CPU on a loaded machine):
// whatever was typed meanwhile is then read in one go. `--dialog` draws a dialog instead of the
// composer, as OpenCode's permission prompt does: it reads everything, draws nothing for a paste,
// and a Return chooses its highlighted button ("chose: Allow once"). `--drop-first N` discards its
// first N reads yet redraws its (empty) composer for each, as OpenCode does when typed to while it
// starts on a loaded machine.
const pasteMode = !process.argv.includes('--no-paste-mode');
const dialog = process.argv.includes('--dialog');
const stallAt = process.argv.indexOf('--stall-ms');
const stallMs = stallAt >= 0 ? Number(process.argv[stallAt + 1]) : 0;
const dropAt = process.argv.indexOf('--drop-first');
let drops = dropAt >= 0 ? Number(process.argv[dropAt + 1]) : 0;
if (process.stdin.isTTY) process.stdin.setRawMode(true);
if (pasteMode) process.stdout.write('\x1b[?2004h');
process.stdout.write('ready>\r\n');
if (dialog) process.stdout.write('Permission required\r\n  Allow once   Reject\r\n');

let composer = '';
let inPaste = false;
const show = () => process.stdout.write(`\r\x1b[Kcomposer: ${composer.replace(/\r/g, '⏎')}`);

// Not reading at all leaves typed input in the terminal, to be read in one go later.
setTimeout(() => process.stdin.on('data', take), stallMs);

function take(buf) {
  let chunk = buf.toString('utf8');
  if (drops > 0) {
    drops--;
    show();
    return;
  }
  if (dialog) {
    if (chunk.endsWith('\r')) process.stdout.write('\r\nchose: Allow once\r\n');
    if (chunk.includes('\x04')) process.exit(0);
    return;
  }
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
}
