// `~` both ways (src/protocol/homePath.ts): what manifests write, and what messages show.
import { describe, expect, it } from 'vitest';
import { expandHome, shortenHome } from '../../src/protocol/homePath';

describe('expandHome', () => {
  it.each([
    ['~', '/home/u', '/home/u'],
    ['~/', '/home/u', '/home/u'],
    ['~/.codex/sessions', '/home/u', '/home/u/.codex/sessions'],
    ['~/.codex/sessions', '/home/u/', '/home/u/.codex/sessions'],
    ['~/x', '/', '/x'],
    ['~other/x', '/home/u', '~other/x'],
    ['/abs/~/x', '/home/u', '/abs/~/x'],
    ['rel/~', '/home/u', 'rel/~'],
    ['~/a b/$HOME', '/Users/Jo Doe', '/Users/Jo Doe/a b/$HOME'],
  ])('%s with home %s → %s', (path, home, out) => {
    expect(expandHome(path, home)).toBe(out);
  });
});

describe('shortenHome', () => {
  it.each([
    ['/home/al', '/home/al', '~'],
    ['/home/al/', '/home/al', '~'],
    ['/home/al/x', '/home/al', '~/x'],
    ['/home/al/x', '/home/al/', '~/x'],
    // A longer name that merely starts with home's is another folder, not a child.
    ['/home/alice/x', '/home/al', '/home/alice/x'],
    ['/home/alx', '/home/al', '/home/alx'],
    ['/tmp/x', '/home/al', '/tmp/x'],
    // A root home would turn every path into ~/…: shorten nothing then.
    ['/etc/hosts', '/', '/etc/hosts'],
    ['/Users/Jo Doe/a b', '/Users/Jo Doe', '~/a b'],
  ])('%s with home %s → %s', (path, home, out) => {
    expect(shortenHome(path, home)).toBe(out);
  });

  it('undoes expandHome for paths below home', () => {
    for (const p of ['~', '~/x', '~/a/b c']) expect(shortenHome(expandHome(p, '/home/u'), '/home/u')).toBe(p);
  });
});
