// The size check itself: a crafted tree with a long file and a long function fails with both named;
// the repository's own src/ passes (generated code is exempt).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(__dirname, '..', '..');
const check = (src: string) => spawnSync(process.execPath, [join(repo, 'scripts', 'check-size.mjs'), src], { encoding: 'utf8', cwd: repo });

describe('size check', () => {
  it('passes on this repository', () => {
    const r = check(join(repo, 'src'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('names a file over 450 lines and a function over 60, and lets generated code be', () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-'));
    try {
      mkdirSync(join(dir, 'a'));
      const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(join(dir, 'a', 'long.ts'), `${Array.from({ length: 451 }, (_, i) => `export const c${i} = ${i};`).join('\n')}\n`);
      writeFileSync(join(dir, 'a', 'fn.ts'), `export function fine() {\n${body(58)}\n}\nexport const big = () => {\n${body(59)}\n};\n`);
      writeFileSync(join(dir, 'a', 'x.generated.ts'), `export function gen() {\n${body(600)}\n}\n`);
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/long\.ts: 451 lines \(at most 450\)/);
      expect(r.stderr).toMatch(/fn\.ts:61: big is 61 lines \(at most 60\)/);
      expect(r.stderr).not.toMatch(/fine|generated/);
      expect(r.stderr).toContain('size: 2 problem(s)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
