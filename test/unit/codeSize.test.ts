// The size check itself: a crafted tree with a long file and a long function fails with both named;
// blank and comment-only lines do not count, lines of a multi-line string do; the repository's own
// src/ passes (generated code is exempt).
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
      expect(r.stderr).toMatch(/long\.ts: 451 lines of code \(at most 450\)/);
      expect(r.stderr).toMatch(/fn\.ts:61: big is 61 lines of code \(at most 60\)/);
      expect(r.stderr).not.toMatch(/fine|generated/);
      expect(r.stderr).toContain('size: 2 problem(s)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts lines of code: comments and blank lines are free, a string's lines and code after a regex or template are not", () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-'));
    try {
      const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
      const notes = Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? '' : i % 3 === 1 ? '  // a note' : '  /* a note */')).join('\n');
      // 58 statements among 600 lines of comments and blanks, after a doc comment: a 664-line file
      // whose function is 60 lines of code with its braces, so neither is over.
      writeFileSync(join(dir, 'comments.ts'), `/**\n * Documented.\n */\nexport function commented() {\n${notes}\n${body(58)}\n}\n`);
      // A regex holding '//' and a template holding "/*" must not hide the lines after them.
      const tricky = `  const re = /\\/\\/'/;\n  const t = \`\${re.source} /* x\`;\n`;
      writeFileSync(join(dir, 'tricky.ts'), `export function tricky() {\n${tricky}${body(57)}\n}\n`);
      // Lines inside a multi-line string are code: the braces, the string's 1 + 57 lines and the return = 61.
      const text = Array.from({ length: 57 }, (_, i) => `line ${i}`).join('\n');
      writeFileSync(join(dir, 'text.ts'), `export function text() {\n  const s = \`\n${text}\`;\n  return s;\n}\n`);
      const r = check(dir);
      expect(r.stderr).not.toMatch(/comments\.ts/);
      expect(r.stderr).toMatch(/tricky\.ts:1: tricky is 61 lines of code \(at most 60\)/);
      expect(r.stderr).toMatch(/text\.ts:1: text is 61 lines of code \(at most 60\)/);
      expect(r.stderr).toContain('size: 2 problem(s)');
      expect(r.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
