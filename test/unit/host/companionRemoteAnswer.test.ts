// A tap on the question of another machine's session, as the page hears the answer of that
// machine's host: sent, or refused with the page's own reason (a machine that is away has one of
// its own), showing what the hub last heard it ask.
import { expect, it } from 'vitest';
import { pageQuestionInfo, remotePageAnswer } from '../../../src/app/host/companion/companion';
import type { QuestionInfo } from '../../../src/protocol/sessionInfo';

const q: QuestionInfo = {
  id: 'q2',
  text: 'Run `npm publish`?',
  context: 'npm publish',
  source: 'screen',
  askedAt: '2026-12-03T09:00:00.000Z',
  answered: null,
  choices: [
    { label: 'Yes', keys: ['1'], highlighted: true },
    { label: 'No', description: 'tell it what to do instead', keys: ['2'], highlighted: false },
  ],
};

it("says sent, or why not in the page's words, with the question asked now", () => {
  expect(remotePageAnswer('s1', 'q1', { ok: true, choice: 'Yes', question: { ...q, id: 'q1' } }, q)).toEqual({
    t: 'answered',
    session: 's1',
    question: 'q1',
    choice: 'Yes',
  });
  const changed = remotePageAnswer('s1', 'q1', { ok: false, code: 'questionChanged', message: 'box: it asks another question now' }, q);
  expect(changed).toMatchObject({
    t: 'answerRefused',
    reason: 'questionChanged',
    message: 'box: it asks another question now',
    current: { id: 'q2', choices: [{ label: 'Yes' }, { label: 'No', description: 'tell it what to do instead' }] },
  });
  expect(remotePageAnswer('s1', 'q1', { ok: false, code: 'machineUnreachable', message: 'box is not connected' }, null)).toMatchObject({
    reason: 'machineAway',
    current: null,
  });
  expect(remotePageAnswer('s1', 'q1', { ok: false, code: 'busy', message: 'x' }, null)).toMatchObject({ reason: 'noSuchSession' });
  expect(pageQuestionInfo(null)).toBeNull();
  expect(pageQuestionInfo({ ...q, answered: { label: 'No', at: q.askedAt } })?.answered).toBe('No');
});
