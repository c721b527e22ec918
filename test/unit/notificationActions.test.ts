// Notification actions: a waiting question's choices become actions (the policy), they are
// posted as D-Bus Notify arguments (the wire format, round-tripped) or as terminal-notifier's
// buttons on macOS, and an action chosen maps back to the question and choice it answers.
import { describe, expect, it } from 'vitest';
import { busSocketPath } from '../../src/app/host/notify/dbusConnection';
import { notifyBody } from '../../src/app/host/notify/dbusNotifier';
import { decodeMessage, encodeMessage, messageLength, METHOD_CALL } from '../../src/app/host/notify/dbusWire';
import {
  actionFromReply,
  answerAction,
  NotificationPolicy,
  nodeNotifierOptions,
  parseAnswerAction,
  type NotificationRequest,
} from '../../src/app/services/notifier';

const prefs = { attention: true, done: true, doneMinSeconds: 0, terminal: true, sound: false };
const ctx = {
  agentName: 'Claude Code',
  folderLabel: 'site',
  userLooking: false,
  question: { id: 'ab12.3', fingerprint: 'ab12', text: 'Run `rm -rf build`?', choices: ['Yes', 'Yes, always', 'No'] },
};

describe('a question in a notification', () => {
  it('names the question and offers its choices as actions', () => {
    const req = new NotificationPolicy(prefs).stateChanged('s1', 'working', 'attention', 1000, ctx)!;
    expect(req.message).toBe('site · Run `rm -rf build`?');
    expect(req.actions).toEqual([
      { id: 'answer:ab12.3:0', label: 'Yes' },
      { id: 'answer:ab12.3:1', label: 'Yes, always' },
      { id: 'answer:ab12.3:2', label: 'No' },
    ]);
    expect(parseAnswerAction(answerAction('ab12.3', 2))).toEqual({ questionId: 'ab12.3', index: 2 });
  });

  it('notifies a new question at once, and the same one asked again only once', () => {
    const policy = new NotificationPolicy(prefs);
    expect(policy.stateChanged('s1', 'working', 'attention', 1000, ctx)).not.toBeNull();
    policy.stateChanged('s1', 'attention', 'working', 1500, ctx);
    const other = { ...ctx, question: { ...ctx.question, id: 'cd34.4', fingerprint: 'cd34', text: 'Edit a.ts?' } };
    expect(policy.stateChanged('s1', 'working', 'attention', 2000, other)?.message).toBe('site · Edit a.ts?');
    policy.stateChanged('s1', 'attention', 'working', 2500, other);
    expect(policy.stateChanged('s1', 'working', 'attention', 3000, { ...other, question: { ...other.question, id: 'cd34.5' } })).toBeNull();
    expect(parseAnswerAction('default')).toBeNull();
  });

  it('is a D-Bus Notify whose bytes decode back to the same arguments', () => {
    const req: NotificationRequest = {
      sessionId: 's1',
      kind: 'attention',
      title: 'Claude Code needs you',
      message: 'site · Run `rm`?',
      actions: [{ id: 'answer:q.1:0', label: 'Yes' }],
    };
    const body = notifyBody(req, '/icon.png', false);
    const bytes = encodeMessage({
      type: METHOD_CALL,
      serial: 7,
      destination: 'org.freedesktop.Notifications',
      path: '/org/freedesktop/Notifications',
      interface: 'org.freedesktop.Notifications',
      member: 'Notify',
      signature: 'susssasa{sv}i',
      body,
    });
    expect(messageLength(bytes)).toBe(bytes.length);
    const back = decodeMessage(bytes);
    expect(back).toMatchObject({ type: METHOD_CALL, serial: 7, member: 'Notify', signature: 'susssasa{sv}i' });
    expect(back.body.slice(0, 6)).toEqual(['Termio', 0, '/icon.png', 'Claude Code needs you', 'site · Run `rm`?', ['default', 'Open', 'answer:q.1:0', 'Yes']]);
    expect(back.body[6]).toEqual([
      ['desktop-entry', { signature: 's', value: 'termio' }],
      ['suppress-sound', { signature: 'b', value: true }],
      ['urgency', { signature: 'y', value: 2 }],
    ]);
    expect(back.body[7]).toBe(-1);
  });

  it('finds the bus socket of an address, path or abstract', () => {
    expect(busSocketPath('unix:path=/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(busSocketPath('unix:abstract=/tmp/dbus-X,guid=1')).toBe('\0/tmp/dbus-X');
    expect(busSocketPath('tcp:host=a,port=1')).toBeNull();
    expect(busSocketPath(undefined)).toBeNull();
  });

  it("is terminal-notifier's buttons on macOS, and the button clicked maps back to its action", () => {
    const req: NotificationRequest = {
      sessionId: 's1',
      kind: 'attention',
      title: 't',
      message: 'm',
      actions: [
        { id: 'answer:q.1:0', label: 'Yes' },
        { id: 'answer:q.1:1', label: 'No' },
      ],
    };
    expect(nodeNotifierOptions(req, false, '/i.png', 'darwin')).toMatchObject({ actions: ['Yes', 'No'], wait: true });
    expect(nodeNotifierOptions(req, false, '/i.png', 'linux')).not.toHaveProperty('actions');
    expect(actionFromReply(req, { activationType: 'actionClicked', activationValue: 'No' })).toBe('answer:q.1:1');
    expect(actionFromReply(req, { activationType: 'contentsClicked' })).toBeNull();
  });
});
