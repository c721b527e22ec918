import { describe, expect, it } from 'vitest';
import { catalogProblemText, closePrompt, jumpItems, sessionName } from '../../../src/app/present/sessionPrompts';

const agentName = (id: string | null) => (id === 'claude' ? 'Claude Code' : 'Terminal');

describe('session prompts', () => {
  it('names a session by its title, else its agent', () => {
    expect(sessionName({ title: ' Fix login ', agentId: 'claude' }, agentName)).toBe('Fix login');
    expect(sessionName({ title: '  ', agentId: null }, agentName)).toBe('Terminal');
  });

  it('lists every session to jump to with folder, agent and state', () => {
    const items = jumpItems(
      [
        { id: 'a', agentId: 'claude', cwd: '/home/u/work/api', title: '', state: 'attention' },
        { id: 'b', agentId: null, cwd: '/home/u/play/api', title: 'Deploy', state: 'idle' },
        { id: 'c', agentId: null, cwd: '/home/u', title: '', state: 'done' },
      ],
      agentName,
      '/home/u',
    );
    expect(items).toEqual([
      { id: 'a', label: 'Claude Code', detail: 'work/api · Claude Code · Needs you' },
      { id: 'b', label: 'Deploy', detail: 'play/api · Terminal · Idle' },
      { id: 'c', label: 'Terminal', detail: '~ · Terminal · Done' },
    ]);
  });

  it('asks before closing a session that started others, in the singular and the plural', () => {
    expect(closePrompt([{ title: 'Tests', agentId: 'claude' }], agentName)).toEqual({
      title: 'CLOSE · IT STARTED 1 SESSION',
      items: [
        { id: 'all', label: 'Close it and the session it started', detail: 'Tests' },
        { id: 'one', label: 'Close only this one', detail: 'the session it started stays open' },
      ],
      hint: 'Enter closes, Esc keeps everything open',
    });
    const two = closePrompt(
      [
        { title: '', agentId: 'claude' },
        { title: 'Build', agentId: null },
      ],
      agentName,
    );
    expect(two.title).toBe('CLOSE · IT STARTED 2 SESSIONS');
    expect(two.items.map((i) => [i.label, i.detail])).toEqual([
      ['Close it and the 2 sessions it started', 'Claude Code, Build'],
      ['Close only this one', 'the 2 sessions it started stay open'],
    ]);
  });

  it('says when a broken manifest keeps its last good version', () => {
    expect(catalogProblemText({ errors: ['a.json: bad', 'a.json: worse'], keptLastGood: true })).toBe(
      'a.json: bad\na.json: worse (the last good version stays loaded)',
    );
    expect(catalogProblemText({ errors: ['b.json: bad'], keptLastGood: false })).toBe('b.json: bad');
  });
});
