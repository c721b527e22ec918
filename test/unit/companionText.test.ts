// The companion's words, pure: the page's title, time in state, folder groups and "needs you"
// order, which browser-terminal output counts as the user's typing, and Settings → Phone.
import { describe, expect, it } from 'vitest';
import type { CompanionStatus, PageSession } from '../../src/protocol/companion';
import { formatDurationWithSeconds as timeInState } from '../../src/app/present/sidebarModel';
import { byFolder, isTerminalReply, needsYou, pageTitle } from '../../src/app/web/pageText';
import { phoneView } from '../../src/app/ui/presenters/phoneText';

const s = (id: string, state: PageSession['state'], folder = 'api', since = 0): PageSession => ({
  id,
  agentId: null,
  name: id,
  folder,
  state,
  stateSince: since,
  waitingSince: state === 'attention' ? since : null,
  exited: false,
  question: null,
  machine: null,
});

describe('page text', () => {
  it('titles the tab with the most urgent count, like the tray', () => {
    expect(pageTitle([])).toBe('Termio');
    expect(pageTitle([s('a', 'idle'), s('b', 'done')])).toBe('Termio');
    expect(pageTitle([s('a', 'working'), s('b', 'working')])).toBe('2 working · Termio');
    expect(pageTitle([s('a', 'working'), s('b', 'attention')])).toBe('1 needs you · Termio');
    expect(pageTitle([s('a', 'attention'), s('b', 'attention')])).toBe('2 need you · Termio');
  });

  it('shows time in state with seconds', () => {
    expect(timeInState(-5)).toBe('0s');
    expect(timeInState(59_999)).toBe('59s');
    expect(timeInState(65_000)).toBe('1m 05s');
    expect(timeInState(2 * 3600_000 + 10 * 60_000)).toBe('2h 10m');
    expect(timeInState(3 * 86_400_000)).toBe('3d');
  });

  it('groups by folder in first-seen order and lists who waits longest first', () => {
    const list = [s('a', 'attention', 'web', 30), s('b', 'idle', 'api'), s('c', 'attention', 'web', 10)];
    expect(byFolder(list).map((g) => [g.folder, g.sessions.map((x) => x.id)])).toEqual([
      ['web', ['a', 'c']],
      ['api', ['b']],
    ]);
    expect(needsYou(list).map((x) => x.id)).toEqual(['c', 'a']);
  });

  it('puts the attention queue first, by how long each has waited, and handled sessions after it', () => {
    // 'h' waits longest in attention but was handled; 'q' re-joined the queue at 5, after 'r'.
    const list = [
      { ...s('h', 'attention', 'api', 1), waitingSince: null },
      { ...s('q', 'attention', 'api', 2), waitingSince: 5 },
      s('r', 'attention', 'api', 3),
    ];
    expect(needsYou(list).map((x) => x.id)).toEqual(['r', 'q', 'h']);
  });

  it("drops the browser terminal's answers to queries, never typing or pastes", () => {
    for (const reply of [
      '\x1b[?1;2c',
      '\x1b[>0;276;0c',
      '\x1b[12;40R',
      '\x1b[0n',
      '\x1b[?2004;1$y',
      '\x1b[I',
      '\x1b[O',
      '\x1bP1$r0m\x1b\\',
      '\x1b]11;rgb:1d1d/1f1f/2121\x1b\\',
    ]) {
      expect(isTerminalReply(reply), JSON.stringify(reply)).toBe(true);
    }
    for (const typed of [
      'a',
      'echo hi',
      '\r',
      '\x03',
      '\x1b',
      '\x1b[A',
      '\x1bOB',
      '\x1b[15~',
      '\x1b[1;5C',
      '\x1b[200~pasted\x1b[201~',
      '\x1b[<0;10;5M',
      '\x1b]',
    ]) {
      expect(isTerminalReply(typed), JSON.stringify(typed)).toBe(false);
    }
  });
});

describe('Settings → Phone text', () => {
  const on: CompanionStatus = { enabled: true, network: 'loopback', port: 7681, listening: true, url: 'http://127.0.0.1:7681/#t=abc', error: null, pages: 1 };

  it('shows the link, where it is reachable, and offers turn off and revoke', () => {
    const v = phoneView(on, null);
    expect(v.headline).toBe('On: reachable from this computer only, port 7681. 1 page connected.');
    expect(v.url).toBe(on.url);
    expect(v.toggle).toEqual({ text: 'Turn off', enabled: true });
    expect(v.lan).toMatchObject({ checked: false, enabled: true });
    expect(v.revoke.enabled).toBe(true);
    expect(v.note).toMatch(/Reachable on my network/);
    expect(phoneView({ ...on, network: 'lan', pages: 0 }, null).headline).toBe(
      'On: reachable from this computer and devices on your network, port 7681. No page connected.',
    );
  });

  it('says why it does not serve, and what is off', () => {
    const busy = phoneView({ ...on, listening: false, url: null, error: 'port 7681 is in use by another program; pick another port' }, null);
    expect(busy.headline).toBe('On, but not serving.');
    expect(busy.error).toMatch(/in use/);
    expect(busy.url).toBeNull();
    const off = phoneView({ ...on, enabled: false, listening: false, url: null }, null);
    expect(off).toMatchObject({ headline: 'Off.', url: null, toggle: { text: 'Turn on' }, lan: { enabled: false } });
    const noHost = phoneView(null, 'the host is not running');
    expect(noHost).toMatchObject({ url: null, error: 'the host is not running', toggle: { enabled: false } });
  });
});
