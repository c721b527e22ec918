// The tray's words for a waiting question: its session's item becomes a submenu with the
// question, one entry per choice and Open; a question already answered is shown as such.
import { describe, expect, it } from 'vitest';
import { trayItems, trayMenu, trayQuestionMenu } from '../../../src/app/ui/presenters/trayText';

const question = { id: 'ab.1', text: 'Run `rm -rf build/cache`?', choices: ['Yes', 'Yes, always', 'No'], answered: null };
/** The question as the host sends it with the session. */
const facts = { id: 'ab.1', text: 'Run `rm -rf build/cache`?', choices: [{ label: 'Yes' }, { label: 'Yes, always' }, { label: 'No' }], answered: null };
const session = (state: 'attention' | 'working') => ({
  id: 's1',
  agentId: 'claude',
  cwd: '/home/me/site',
  title: '',
  state,
  stateSince: 0,
  waitingSince: state === 'attention' ? 0 : null,
  question: facts,
});

describe('a waiting question in the tray', () => {
  it('lists the question and its choices under the session, while it needs you', () => {
    const [item] = trayItems(
      [session('attention')],
      () => 'Claude Code',
      () => undefined,
      '/home/me',
    );
    expect(item!.question).toEqual(question);
    expect(
      trayItems(
        [session('working')],
        () => 'Claude Code',
        () => undefined,
        '/home/me',
      )[0]!.question,
    ).toBeUndefined();
    expect(trayQuestionMenu(question)).toEqual({
      question: 'Run `rm -rf build/cache`?',
      choices: [
        { text: 'Yes', index: 0, enabled: true },
        { text: 'Yes, always', index: 1, enabled: true },
        { text: 'No', index: 2, enabled: true },
      ],
      open: 'Open Session',
    });
  });

  it('shows an answered question with its answer, and rebuilds the menu when it changes', () => {
    const answered = { ...question, answered: 'No' };
    expect(trayQuestionMenu(answered).choices.map((c) => [c.text, c.enabled])).toEqual([
      ['Yes', false],
      ['Yes, always', false],
      ['No (answered)', false],
    ]);
    const [item] = trayItems(
      [session('attention')],
      () => 'Claude Code',
      () => undefined,
      '/home/me',
    );
    const before = trayMenu([item!], [], 0);
    const after = trayMenu([{ ...item!, question: answered }], [], 0);
    expect(before.sessions[0]!.question).toEqual(question);
    expect(after.key).not.toBe(before.key);
    const long = trayQuestionMenu({ ...question, text: `Run \`${'x'.repeat(200)}\`?` }).question;
    expect(long.length).toBe(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
