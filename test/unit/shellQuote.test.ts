import { describe, expect, it } from 'vitest';
import { droppedPaths, shellQuote } from '../../src/app/services/shellQuote';

describe('shell quoting of dropped paths', () => {
  it('leaves plain paths alone and single-quotes the rest', () => {
    expect(shellQuote('/home/u/src/main.ts')).toBe('/home/u/src/main.ts');
    expect(shellQuote('/tmp/a b.txt')).toBe("'/tmp/a b.txt'");
    expect(shellQuote("/tmp/it's $HOME;rm")).toBe(`'/tmp/it'\\''s $HOME;rm'`);
    expect(shellQuote('')).toBe("''");
  });

  it('turns file URLs into paths', () => {
    expect(droppedPaths(['file:///tmp/a%20b.png', 'file://localhost/etc/hosts', 'https://x.y/z'])).toEqual(['/tmp/a b.png', '/etc/hosts', 'https://x.y/z']);
  });
});
