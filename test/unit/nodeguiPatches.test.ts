// The changes set-up makes to NodeGUI's C++ before compiling it: applied once, recognised when
// already applied, refused with the file named when NodeGUI's source moved on, and still matching
// the NodeGUI this checkout installs (patched or not).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyNodeguiPatches, NODEGUI_PATCHES, nodeguiPatchesHash } from '../../scripts/lib/nodeguiPatches.mjs';

const repo = resolve(__dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'termio-nodegui-patch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package folder whose patched files hold `text(patch)` between two lines of context. */
function fakePackage(name: string, text: (p: (typeof NODEGUI_PATCHES)[number]) => string): string {
  const dir = join(scratch, name);
  for (const p of NODEGUI_PATCHES) {
    mkdirSync(dirname(join(dir, p.file)), { recursive: true });
    writeFileSync(join(dir, p.file), `// before\n${text(p)}// after\n`);
  }
  return dir;
}

describe('applyNodeguiPatches', () => {
  it('replaces each original text once and leaves an applied patch as it is', () => {
    const dir = fakePackage('fresh', (p) => p.from);
    applyNodeguiPatches(dir);
    for (const p of NODEGUI_PATCHES) expect(readFileSync(join(dir, p.file), 'utf8')).toBe(`// before\n${p.to}// after\n`);
    applyNodeguiPatches(dir);
    for (const p of NODEGUI_PATCHES) expect(readFileSync(join(dir, p.file), 'utf8')).toBe(`// before\n${p.to}// after\n`);
  });

  it('names the file when its source no longer has the text, and changes nothing', () => {
    const dir = fakePackage('moved', () => 'something else entirely\n');
    const p = NODEGUI_PATCHES[0]!;
    expect(() => applyNodeguiPatches(dir)).toThrow(join(dir, p.file));
    expect(readFileSync(join(dir, p.file), 'utf8')).toBe('// before\nsomething else entirely\n// after\n');
  });

  it('matches the installed NodeGUI, before or after set-up patched it', () => {
    for (const p of NODEGUI_PATCHES) {
      const text = readFileSync(join(repo, 'node_modules', '@nodegui', 'nodegui', p.file), 'utf8');
      expect(text.includes(p.from) || text.includes(p.to), p.file).toBe(true);
    }
  });
});

it('keys the compiled addon by the patches: another patch text is another build', () => {
  const hash = nodeguiPatchesHash();
  expect(hash).toMatch(/^[0-9a-f]{12}$/);
  const saved = NODEGUI_PATCHES[0]!.to;
  try {
    NODEGUI_PATCHES[0]!.to = `${saved}// changed\n`;
    expect(nodeguiPatchesHash()).not.toBe(hash);
  } finally {
    NODEGUI_PATCHES[0]!.to = saved;
  }
  expect(nodeguiPatchesHash()).toBe(hash);
});
