// Title and screen detectors fed one byte at a time: real agent title sequences (OSC 0 with BEL
// or ST) and screen prompts go through a real emulator byte by byte, and the status engine must
// move through exactly the intended states — a partial sequence never yields a state.
import { describe, expect, it } from 'vitest';
import { Terminal } from '@xterm/headless';
import { StatusEngine, type StatusEngineConfig } from '../../../src/protocol/status';

function harness(config: StatusEngineConfig) {
  const term = new Terminal({ cols: 80, rows: 10, allowProposedApi: true });
  const engine = new StatusEngine(config, 0);
  const seen: string[] = [];
  let t = 1;
  const note = () => {
    const s = engine.status.state;
    if (seen[seen.length - 1] !== s) seen.push(s);
  };
  term.onTitleChange((title) => {
    engine.apply({ kind: 'title', title, at: t++ });
    note();
  });
  const screenLines = () => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < term.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    return out;
  };
  const write = (data: Uint8Array | string) => new Promise<void>((r) => term.write(data, r));
  return {
    seen,
    async feedBytewise(text: string) {
      for (const b of Buffer.from(text, 'utf8')) {
        await write(Uint8Array.of(b));
        // A screen snapshot after every byte: the harshest throttle there is.
        engine.apply({ kind: 'screen', lines: screenLines(), at: t++ });
        note();
      }
    },
    dispose: () => term.dispose(),
  };
}

const OSC0 = (title: string, st = '\x07') => `\x1b]0;${title}${st}`;

describe('titles byte by byte', () => {
  it('claude: ✳ idle → spinner frames → ✳ (no hooks reporting yet: title only)', async () => {
    const h = harness({ hooksDeclared: false, titleStatus: { idle: ['^✳ '], working: ['^[^\\sA-Za-z0-9✳] '] } });
    await h.feedBytewise(OSC0('✳ Claude Code') + 'hello' + OSC0('⠂ Refactor parser') + OSC0('⠐ Refactor parser') + OSC0('✳ Refactor parser'));
    expect(h.seen).toEqual(['idle', 'working', 'done']);
    h.dispose();
  });

  it('codex: ST-terminated titles, attention alternating [ ! ] / [ . ]', async () => {
    const h = harness({ hooksDeclared: false, titleStatus: { attention: ['\\[ [!.] \\] Action Required'], working: ['^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]'] } });
    const st = '\x1b\\';
    await h.feedBytewise(
      OSC0('⠋ app', st) + OSC0('⠙ app', st) + OSC0('[ ! ] Action Required', st) + OSC0('[ . ] Action Required', st) + OSC0('⠹ app', st) + OSC0('app', st),
    );
    expect(h.seen).toEqual(['idle', 'working', 'attention', 'working', 'done']);
    h.dispose();
  });

  it('gemini: titles padded to 80 columns with multi-byte glyphs', async () => {
    const h = harness({ hooksDeclared: false, titleStatus: { attention: ['^✋'], working: ['^✦', '^⏲'], idle: ['^◇'] } });
    const pad = (s: string) => s.padEnd(80, ' ');
    await h.feedBytewise(OSC0(pad('◇  Ready (app)')) + OSC0(pad('✦  Working… (app)')) + OSC0(pad('✋  Action Required (app)')) + OSC0(pad('◇  Ready (app)')));
    expect(h.seen).toEqual(['idle', 'working', 'attention', 'done']);
    h.dispose();
  });
});

describe('screen rules byte by byte', () => {
  it('a prompt drawn with colours and cursor moves is seen only once complete', async () => {
    const h = harness({ hooksDeclared: false, status: { working: ['esc to interrupt'], attention: ['^\\s*Do you want to proceed\\?'] } });
    await h.feedBytewise('\x1b[2J\x1b[H\x1b[38;5;208m✻\x1b[0m Thinking… (\x1b[1mesc\x1b[22m to interrupt)\r\n');
    await h.feedBytewise('\x1b[5;3H\x1b[7mDo you want to \x1b[27mproceed?\x1b[0m\r\n ❯ 1. Yes\r\n   2. No');
    // The user answers: the prompt is erased, work goes on, then the spinner line goes.
    await h.feedBytewise('\x1b[5;1H\x1b[J');
    await h.feedBytewise('\x1b[1;1H\x1b[2K> ');
    expect(h.seen).toEqual(['idle', 'working', 'attention', 'working', 'done']);
    h.dispose();
  });
});
