import { describe, expect, it } from 'vitest';
import { fuzzyFilter, fuzzyMatch } from '../../src/app/present/fuzzy';

const agents = ['Terminal', 'Claude Code', 'Codex', 'Gemini CLI', 'GitHub Copilot', 'Cursor', 'OpenCode', 'Crush'];
const names = (q: string) => fuzzyFilter(q, agents, (a) => a).map((r) => r.item);

describe('fuzzy matching', () => {
  it('needs every letter in order', () => {
    expect(fuzzyMatch('cdx', 'Codex')).not.toBeNull();
    expect(fuzzyMatch('xdc', 'Codex')).toBeNull();
    expect(fuzzyMatch('', 'anything')).toEqual({ score: 0, positions: [] });
  });

  it('prefers word starts and runs', () => {
    expect(names('cc')[0]).toBe('Claude Code');
    expect(names('cod')[0]).toBe('Codex');
    expect(names('gem')).toEqual(['Gemini CLI']);
    expect(names('cop')[0]).toBe('GitHub Copilot');
  });

  it('keeps the given order when the query is empty', () => {
    expect(names('')).toEqual(agents);
  });

  it('reports matched positions for highlighting', () => {
    expect(fuzzyMatch('cc', 'Claude Code')!.positions).toEqual([0, 7]);
  });
});
