// The benchmark corpora: what users flood a terminal with. `ls -lR /usr` and `seq` run live;
// CJK/emoji/combining text, truecolor per character and an agent-TUI redraw are written to files
// in `work` once and shown with cat. Each takes about half a second or more to show: a corpus shown
// in 0.15 s (as these two were at 2.9 and 5 MB) is ~9 frames, too few to tell a frame rate or a
// throughput ratio from the noise.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeCorpora(work) {
  const unicode = [];
  const samples = ['日本語のテキスト', '한국어 문장', 'émoji 😀🎉👍🏽', 'e\u0301 a\u0308 ñ', '✳ ⠋ ⏺ →', 'Ελληνικά Русский'];
  for (let i = 0; i < 240_000; i++) unicode.push(`${i} ${samples[i % samples.length]} ${samples[(i + 3) % samples.length]}`);
  writeFileSync(join(work, 'unicode.txt'), unicode.join('\n') + '\n');
  let tc = '';
  for (let line = 0; line < 12_000; line++) {
    for (let c = 0; c < 80; c++) {
      const h = (line * 3 + c * 5) % 256;
      tc += `\x1b[38;2;${h};${255 - h};${(h * 7) % 256}m${String.fromCharCode(33 + ((line + c) % 90))}`;
    }
    tc += '\x1b[0m\n';
  }
  writeFileSync(join(work, 'truecolor.txt'), tc);
  let tui = '\x1b[?1049h';
  const spinner = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  for (let f = 0; f < 80_000; f++) {
    tui += `\x1b[?2026h\x1b[H\x1b[2K\x1b[1;36m${spinner[f % 10]}\x1b[0m Working… (${f} tokens)`;
    tui += `\x1b[${(f % 20) + 3};1H\x1b[2K\x1b[38;5;${f % 256}m│ line ${f} of the transcript with some text\x1b[0m`;
    tui += '\x1b[24;1H\x1b[2K╭─ input ──────────────────────────────╮\x1b[?2026l';
  }
  tui += '\x1b[?1049l';
  writeFileSync(join(work, 'tui.txt'), tui);
  return [
    { name: 'ls -lR /usr', argv: ['/bin/sh', '-c', 'ls --color=always -lR /usr 2>/dev/null | head -c 20000000'] },
    { name: 'seq 1 3000000', argv: ['seq', '1', '3000000'] },
    { name: 'unicode/emoji', argv: ['cat', join(work, 'unicode.txt')] },
    { name: 'truecolor/char', argv: ['cat', join(work, 'truecolor.txt')] },
    { name: 'TUI redraw', argv: ['cat', join(work, 'tui.txt')] },
  ];
}
