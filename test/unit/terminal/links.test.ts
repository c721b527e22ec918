// Plain URL detection for Cmd/Ctrl-click.
import { describe, expect, it } from 'vitest';
import { findLinks } from '../../../src/terminal/common/links';

describe('findLinks', () => {
  it('finds URLs with their columns and drops sentence punctuation', () => {
    expect(findLinks('see https://example.com/a?b=1, and (http://x.org/y).')).toEqual([
      { start: 4, end: 29, url: 'https://example.com/a?b=1' },
      { start: 36, end: 50, url: 'http://x.org/y' },
    ]);
  });

  it('keeps a balanced closing parenthesis and stops at quotes', () => {
    expect(findLinks('https://en.wikipedia.org/wiki/Foo_(bar) "file:///tmp/a b"').map((l) => l.url)).toEqual([
      'https://en.wikipedia.org/wiki/Foo_(bar)',
      'file:///tmp/a',
    ]);
  });

  it('finds nothing in plain text', () => {
    expect(findLinks('no links: example.com, http:/broken')).toEqual([]);
  });
});
