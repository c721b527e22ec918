// The screen's question detector in the status engine: a menu, a y/n prompt or a trust dialog is
// attention while no hook has reported yet and for agents without hooks; the why quotes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatusEngine, type StatusEngineConfig } from '../../../src/protocol/status';
import { whyText } from '../../../src/app/present/whyText';

const fixture = (name: string): string[] => readFileSync(join(__dirname, '..', '..', 'fixtures', 'questions', name), 'utf8').split('\n');
const trust = fixture('claude-trust.txt');
const idle = fixture('claude-idle.txt');
const claude: StatusEngineConfig = {
  hooksDeclared: true,
  hooksReportAtStart: true,
  titleStatus: { idle: ['^✳ '], working: ['^[^\\sA-Za-z0-9✳] '] },
  questionTui: 'claude',
};

describe('a question on screen', () => {
  it("is attention before Claude's hooks report (its folder-trust question), quoted in the why", () => {
    const e = new StatusEngine(claude, 0);
    e.apply({ kind: 'title', title: '✳ Claude Code', at: 1 });
    expect(e.status.state).toBe('idle');
    e.apply({ kind: 'screen', lines: trust, at: 2 });
    expect(e.status.state).toBe('attention');
    expect(e.status.why).toEqual({ channel: 'question', event: '“Is this a project you created or one you trust?”', at: 2 });
    expect(whyText({ state: 'attention', stateWhy: '', status: e.status, now: 2 })).toBe(
      'Needs you — question on screen “Is this a project you created or one you trust?”, just now',
    );
    // Answered: the question is gone, the agent starts and its hooks take over.
    e.apply({ kind: 'screen', lines: idle, at: 3 });
    expect(e.status.state).not.toBe('attention');
    e.apply({ kind: 'hook', state: 'idle', event: 'SessionStart', at: 4 });
    expect(e.watchesQuestions).toBe(false);
    // With hooks reporting, a menu on screen is left to the hooks (they say PermissionRequest).
    e.apply({ kind: 'screen', lines: trust, at: 5 });
    expect(e.status.state).not.toBe('attention');
  });

  it("is attention for Claude Code 2.1.332's folder-trust question, whose options carry no numbers", () => {
    const e = new StatusEngine(claude, 0);
    e.apply({ kind: 'screen', lines: fixture('claude-2.1.332-trust-60.txt'), at: 1 });
    expect(e.status.state).toBe('attention');
    expect(e.status.why.event).toBe('“Is this a project you created or one you trust?”');
    e.apply({ kind: 'screen', lines: fixture('claude-2.1.332-idle-100.txt'), at: 2 });
    expect(e.status.state).not.toBe('attention');
  });

  it('is attention for an agent without hooks, and beats its working title', () => {
    const e = new StatusEngine({ hooksDeclared: false, titleStatus: { working: ['^busy'] }, questionTui: 'generic' }, 0);
    e.apply({ kind: 'title', title: 'busy', at: 1 });
    e.apply({ kind: 'screen', lines: ['Overwrite config.json? [y/N]'], at: 2 });
    expect(e.status.state).toBe('attention');
    expect(e.status.why.event).toBe('“Overwrite config.json?”');
    e.apply({ kind: 'screen', lines: ['Overwrite config.json? [y/N] y', 'written.'], at: 3 });
    expect(e.status.state).toBe('working');
  });

  it('counts for nothing without the detector (a login shell)', () => {
    const e = new StatusEngine({ hooksDeclared: false }, 0);
    e.apply({ kind: 'screen', lines: ['rm: remove regular file x? (y/n)'], at: 1 });
    expect(e.status.state).toBe('idle');
    expect(e.watchesQuestions).toBe(false);
  });
});
