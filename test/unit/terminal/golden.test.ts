// Golden screens: each test/fixtures/terminal/NAME.in (raw bytes) replayed into a 40×12
// emulator must leave exactly the visible lines in NAME.txt. Replayed whole and one byte at a
// time, which must agree. UPDATE_GOLDEN=1 rewrites the .txt files (review the diff!).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type TestEmulator } from './helpers';

const dir = join(__dirname, '..', '..', 'fixtures', 'terminal');
const COLS = 40;
const ROWS = 12;
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.in'))
  .map((f) => f.slice(0, -3))
  .sort();

let emu: TestEmulator;
afterEach(() => emu?.dispose());

describe('golden screens', () => {
  it('has fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
  });

  for (const name of fixtures) {
    it(name, async () => {
      const input = readFileSync(join(dir, `${name}.in`));
      emu = createEmulator(COLS, ROWS);
      await emu.write(input);
      const screen = emu.lines().join('\n') + '\n';
      const goldenPath = join(dir, `${name}.txt`);
      if (process.env.UPDATE_GOLDEN) writeFileSync(goldenPath, screen);
      expect(screen).toBe(readFileSync(goldenPath, 'utf8'));
      // The render model's row text agrees with the emulator's.
      const frameText = emu.model.update().frame.lines.map((l) => l.text);
      while (frameText.length && frameText[frameText.length - 1] === '') frameText.pop();
      expect(frameText.join('\n') + '\n').toBe(screen);
      emu.dispose();
      emu = createEmulator(COLS, ROWS);
      await emu.writeBytewise(input);
      expect(emu.lines().join('\n') + '\n').toBe(screen);
    });
  }
});
