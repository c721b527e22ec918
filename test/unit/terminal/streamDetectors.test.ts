// Stream detectors and mode trackers fed ONE BYTE AT A TIME (and whole, for contrast): OSC 0/2
// titles, OSC 9 / OSC 777 notifications, OSC 9;4 progress, bell, OSC 8 hyperlinks, cursor
// shape, cursor visibility, mouse encoding, kitty keyboard flags and modifyOtherKeys.
import { afterEach, describe, expect, it } from 'vitest';
import { InBandSignals } from '../../../src/terminal/common/inBandSignals';
import { createEmulator, type TestEmulator } from './helpers';

let emu: TestEmulator;
let signals: InBandSignals;
afterEach(() => {
  signals?.dispose();
  emu?.dispose();
});

function setup(): { titles: string[]; bells: number[]; notes: { title: string; body: string }[]; progress: { state: number; value: number }[] } {
  emu = createEmulator(40, 5);
  signals = new InBandSignals(emu.term);
  const seen = {
    titles: [] as string[],
    bells: [] as number[],
    notes: [] as { title: string; body: string }[],
    progress: [] as { state: number; value: number }[],
  };
  signals.onTitle((t) => seen.titles.push(t));
  signals.onBell(() => seen.bells.push(1));
  signals.onNotification((n) => seen.notes.push(n));
  signals.onProgress((p) => seen.progress.push(p));
  return seen;
}

for (const mode of ['bytewise', 'whole'] as const) {
  const feed = (data: string): Promise<void> => (mode === 'bytewise' ? emu.writeBytewise(data) : emu.write(data));

  describe(`in-band signals (${mode})`, () => {
    it('OSC 0 and OSC 2 set the title, BEL- or ST-terminated, including UTF-8', async () => {
      const seen = setup();
      await feed('\x1b]0;✳ Claude Code\x07text\x1b]2;codex · repo\x1b\\');
      expect(seen.titles).toEqual(['✳ Claude Code', 'codex · repo']);
      expect(signals.title).toBe('codex · repo');
      expect(seen.bells).toEqual([]);
      expect(emu.lines()).toEqual(['text']);
    });

    it('BEL outside a sequence rings the bell', async () => {
      const seen = setup();
      await feed('a\x07b\x07');
      expect(seen.bells).toHaveLength(2);
      expect(emu.lines()).toEqual(['ab']);
    });

    it('OSC 9 is a notification with a body; OSC 9;4 is progress', async () => {
      const seen = setup();
      await feed('\x1b]9;Build finished ✓\x07\x1b]9;4;1;42\x1b\\\x1b]9;4;0\x07');
      expect(seen.notes).toEqual([{ title: '', body: 'Build finished ✓' }]);
      expect(seen.progress).toEqual([
        { state: 1, value: 42 },
        { state: 0, value: 0 },
      ]);
    });

    it('OSC 777;notify carries a title and a body (which may contain ;)', async () => {
      const seen = setup();
      await feed('\x1b]777;notify;Claude;Needs input; approve?\x07\x1b]777;other;x\x07');
      expect(seen.notes).toEqual([{ title: 'Claude', body: 'Needs input; approve?' }]);
    });

    it('OSC 8 hyperlinks attach a URL to the cells between open and close', async () => {
      setup();
      await feed('see \x1b]8;id=1;https://example.com/a?b=c\x1b\\the docs\x1b]8;;\x1b\\ now');
      const row = emu.model.update().frame.lines[0]!;
      expect(row.text).toBe('see the docs now');
      expect(row.runs.map((r) => [r.text, r.link])).toEqual([
        ['see ', undefined],
        ['the docs', 'https://example.com/a?b=c'],
        [' now', undefined],
      ]);
    });
  });

  describe(`mode tracking (${mode})`, () => {
    it('DECSCUSR sets the cursor shape and blink; 0 restores the default', async () => {
      emu = createEmulator(20, 3);
      await feed('\x1b[5 q');
      expect(emu.model.update().frame.cursor).toMatchObject({ shape: 'bar', blinking: true });
      await feed('\x1b[4 q');
      expect(emu.model.update().frame.cursor).toMatchObject({ shape: 'underline', blinking: false });
      await feed('\x1b[0 q');
      expect(emu.model.update().frame.cursor).toMatchObject({ shape: 'block', blinking: false });
    });

    it('DECTCEM hides and shows the cursor', async () => {
      emu = createEmulator(20, 3);
      await feed('\x1b[?25l');
      expect(emu.model.update().frame.cursor.visible).toBe(false);
      await feed('\x1b[?25h');
      expect(emu.model.update().frame.cursor.visible).toBe(true);
    });

    it('mouse encodings ?1006/?1015/?1016 and their reset', async () => {
      emu = createEmulator(20, 3);
      await feed('\x1b[?1000;1006h');
      expect([emu.term.modes.mouseTrackingMode, emu.modes.mouseEncoding]).toEqual(['vt200', 'sgr']);
      await feed('\x1b[?1006l\x1b[?1015h');
      expect(emu.modes.mouseEncoding).toBe('urxvt');
      await feed('\x1b[?1016h');
      expect(emu.modes.mouseEncoding).toBe('sgrPixels');
      await feed('\x1bc');
      expect(emu.modes.mouseEncoding).toBe('default');
    });

    it('kitty keyboard flags: push, set, query, pop, per screen', async () => {
      emu = createEmulator(20, 3);
      await feed('\x1b[>1u');
      expect(emu.modes.kittyFlags).toBe(1);
      await feed('\x1b[>9u');
      expect(emu.modes.kittyFlags).toBe(9);
      await feed('\x1b[=2;2u');
      expect(emu.modes.kittyFlags).toBe(11);
      await feed('\x1b[=8;3u');
      expect(emu.modes.kittyFlags).toBe(3);
      await feed('\x1b[?u');
      expect(emu.replies).toEqual(['\x1b[?3u']);
      await feed('\x1b[<u');
      expect(emu.modes.kittyFlags).toBe(1);
      // The alternate screen has its own stack.
      await feed('\x1b[?1049h');
      expect(emu.modes.kittyFlags).toBe(0);
      await feed('\x1b[>1u\x1b[?1049l');
      expect(emu.modes.kittyFlags).toBe(1);
      await feed('\x1b[<5u');
      expect(emu.modes.kittyFlags).toBe(0);
      expect(emu.lines()).toEqual([]);
    });

    it('modifyOtherKeys levels', async () => {
      emu = createEmulator(20, 3);
      await feed('\x1b[>4;2m');
      expect(emu.modes.modifyOtherKeys).toBe(2);
      await feed('\x1b[>4;1m');
      expect(emu.modes.modifyOtherKeys).toBe(1);
      await feed('\x1b[>4m');
      expect(emu.modes.modifyOtherKeys).toBe(0);
      await feed('\x1b[>4;1m\x1b[>4n');
      expect(emu.modes.modifyOtherKeys).toBe(0);
      // SGR is unaffected by the prefixed form.
      await feed('\x1b[1mB');
      expect(emu.model.update().frame.lines[0]!.runs[0]).toMatchObject({ text: 'B', bold: true });
    });
  });
}
