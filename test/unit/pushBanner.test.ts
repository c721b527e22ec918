// When the companion page's banner for a pushed notification stays and when it goes, judged by the
// page's list of sessions: the pure rule of src/app/web/pushBanner.ts (the e2e test
// companionPush.test.ts shows the banner in a real browser).
import { describe, expect, it } from 'vitest';
import type { PageQuestion, PageSession } from '../../src/protocol/companion';
import type { PushPayload } from '../../src/protocol/push';
import { pagePush, type PagePush } from '../../src/app/web/pushAnswer';
import { current } from '../../src/app/web/pushBanner';

const payload = (kind: PushPayload['kind'], question: string | null): PushPayload => ({
  v: 1,
  kind,
  session: 's1',
  url: '/#s=s1',
  agent: 'Claude Code',
  folder: 'api',
  question: question === null ? null : { text: question, choices: ['Yes', 'No'], token: 'tok' },
  ...(kind === 'failed' ? { failure: 'API error 401' } : {}),
  sentAt: 0,
});
const q = (id: string, text: string, answered: string | null = null): PageQuestion => ({
  id,
  text,
  context: '',
  choices: [{ label: 'Yes' }, { label: 'No' }],
  answered,
});
const session = (state: PageSession['state'], question: PageQuestion | null = null): PageSession => ({
  id: 's1',
  agentId: 'claude',
  name: 'api',
  folder: 'api',
  state,
  stateSince: 0,
  waitingSince: state === 'attention' ? 0 : null,
  exited: false,
  question,
  machine: null,
});

describe('a pushed question in the page', () => {
  it('stays while its question is asked, and goes once it is answered from anywhere', () => {
    const b: { push: PagePush; question?: string } = { push: pagePush(payload('attention', 'Run npm test?'), 2) };
    expect(current(b, session('attention', q('q1', 'Run npm test?')))).toBe(true);
    expect(b.question).toBe('q1');
    expect(current(b, session('attention', q('q1', 'Run npm test?', 'Yes')))).toBe(false);
    expect(current(b, session('working'))).toBe(false);
    expect(current(b, undefined)).toBe(false);
  });

  it('goes when the question changes, even to the same words asked again', () => {
    const b: { push: PagePush; question?: string } = { push: pagePush(payload('attention', 'Run npm test?'), 2) };
    expect(current(b, session('attention', q('q1', 'Run npm test?')))).toBe(true);
    expect(current(b, session('attention', q('q2', 'Run npm test?')))).toBe(false);
    expect(current(b, session('attention', q('q3', 'Edit app.ts?')))).toBe(false);
  });

  it('is not shown when the page lists another question, or none, as it arrives', () => {
    const push = pagePush(payload('attention', 'Run npm test?'), 2);
    expect(current({ push }, session('attention', q('q2', 'Edit app.ts?')))).toBe(false);
    expect(current({ push }, session('attention'))).toBe(false);
    expect(current({ push }, session('idle'))).toBe(false);
  });

  it('keeps a push that asks nothing while the session is still in the state it tells of', () => {
    const failed = pagePush(payload('failed', null), 2);
    expect(failed.token).toBeNull();
    expect(current({ push: failed }, session('attention'))).toBe(true);
    expect(current({ push: failed }, session('working'))).toBe(false);
    const done = pagePush(payload('done', null), 2);
    expect(current({ push: done }, session('done'))).toBe(true);
    expect(current({ push: done }, session('working'))).toBe(false);
    expect(current({ push: done }, undefined)).toBe(false);
  });
});
