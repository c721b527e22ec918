// How a History pane result reads: hits marked in its lines (HTML-safe), the folder, machine and
// day under its title, and the status under the list.
import { describe, expect, it } from 'vitest';
import { highlightHits, historyStatusText, resultFacts, resultTitle, whenText } from '../../../src/app/present/historyText';

describe('history text', () => {
  it('marks each hit and escapes the rest', () => {
    expect(
      highlightHits(
        'the <flaky> upload test',
        [
          { start: 12, length: 6 },
          { start: 5, length: 5 },
        ],
        'b',
      ),
    ).toBe('the &lt;<span style="b">flaky</span>&gt; <span style="b">upload</span> test');
    // Out of range or overlapping: clipped, the text is all there.
    expect(
      highlightHits(
        'abc',
        [
          { start: 1, length: 9 },
          { start: 2, length: 1 },
        ],
        's',
      ),
    ).toBe('a<span style="s">bc</span>');
  });

  it('says when, in the local day', () => {
    const now = new Date(2026, 11, 7, 15, 0);
    expect(whenText(new Date(2026, 11, 7, 9, 5).toISOString(), now)).toBe('today 09:05');
    expect(whenText(new Date(2026, 11, 6, 23, 0).toISOString(), now)).toBe('yesterday');
    expect(whenText(new Date(2026, 10, 1).toISOString(), now)).toBe('Nov 1');
    expect(whenText(new Date(2025, 0, 3).toISOString(), now)).toBe('Jan 3, 2025');
    expect(whenText(null, now)).toBe('');
  });

  it('puts the folder, the machine and the day under the title', () => {
    const now = new Date(2026, 11, 7, 15, 0);
    expect(resultFacts({ cwd: '/home/me/proj', machine: null, lastActivity: new Date(2026, 11, 6).toISOString() }, '/home/me', now)).toBe('~/proj · yesterday');
    expect(resultFacts({ cwd: null, machine: 'devbox', lastActivity: null }, '/home/me', now)).toBe('folder unknown · on devbox');
    expect(resultTitle({ title: 'Tell me\nabout  it', snippet: 'x' })).toBe('Tell me about it');
    expect(resultTitle({ title: null, snippet: 'a'.repeat(100) }, 10)).toBe(`${'a'.repeat(9)}…`);
  });

  it('says how many matched and when the index is still being read', () => {
    expect(historyStatusText(1, { indexing: false, scanned: true, queued: 0 })).toBe('1 conversation.');
    expect(historyStatusText(0, { indexing: true, scanned: false, queued: 4 }, ['devbox'])).toBe(
      'No conversation matches. Still reading past conversations (4 files to go): some may be missing. Could not ask devbox.',
    );
  });
});
