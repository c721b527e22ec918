// Web Push's parts on their own: the files it keeps (0600; a corrupt file left untouched, named,
// and push refused until it is fixed), answer tokens and when they expire, what a push service's
// answer leads to (sent, removed, backoff honouring Retry-After, capped), and the payload schema.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CompanionPush } from '../../../src/app/host/companion/push/push';
import { PushDevices, loadVapidKeys } from '../../../src/app/host/companion/push/pushStore';
import type { SessionRecord, StateChange } from '../../../src/app/host/sessions/sessionRegistry';
import { Emitter } from '../../../src/protocol/events';
import { waitFor } from '../../helpers/waitFor';
import { BACKOFF_CAP_MS, BACKOFF_FIRST_MS, RETRY_AFTER_CAP_MS, pushDecision, retryAfterMs } from '../../../src/app/host/companion/push/pushSender';
import { AnswerTokens } from '../../../src/app/host/companion/push/pushTokens';
import { PushPayloadSchema, PushRegisterSchema, type PushDevice } from '../../../src/protocol/push';
import { choiceOfAction, pushNotification } from '../../../src/protocol/pushNotification';

const dirs: string[] = [];
const home = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'tpushparts-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const device = (id: string): PushDevice => ({
  id,
  name: 'Android · Chrome',
  createdAt: 1,
  subscription: { endpoint: `https://push.example/${id}`, keys: { p256dh: 'BAAA', auth: 'AAAA' } },
  options: { done: false, failed: false },
  last: null,
});

describe('the files', () => {
  it('makes the VAPID keys once, 0600, and keeps them', () => {
    const h = home();
    let made = 0;
    const gen = () => (made++, { publicKey: 'B'.repeat(87), privateKey: 'k'.repeat(43) });
    const a = loadVapidKeys(h, gen);
    const b = loadVapidKeys(h, gen);
    expect(a).toEqual(b);
    expect(made).toBe(1);
    expect(statSync(join(h, 'push-vapid.json')).mode & 0o777).toBe(0o600);
  });

  it('writes the subscriptions 0600, and tightens a loosened file', () => {
    const h = home();
    const store = new PushDevices(h);
    expect(store.load()).toEqual({ ok: true, value: [] });
    store.update(() => [device('phone-aaaa')]);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    chmodSync(store.file, 0o644);
    expect(new PushDevices(h).load()).toMatchObject({ ok: true, value: [{ id: 'phone-aaaa' }] });
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('leaves a corrupt file as it is, says which and what, refuses changes, and reads it again once fixed', () => {
    const h = home();
    const store = new PushDevices(h);
    store.update(() => [device('phone-aaaa'), device('phone-bbbb')]);
    const good = readFileSync(store.file, 'utf8');
    const bad = good.replace('"createdAt": 1', '"createdAt": "yesterday"');
    writeFileSync(store.file, bad);
    const r = store.load();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(new RegExp(`^${store.file}: devices\\.0\\.createdAt: .*push is off until then$`));
    expect(store.update((all) => all.slice(1)).ok).toBe(false);
    expect(readFileSync(store.file, 'utf8')).toBe(bad);
    writeFileSync(store.file, '{ not json');
    const notJson = store.load();
    expect(!notJson.ok && notJson.message).toContain(`${store.file} is not JSON`);
    writeFileSync(store.file, good);
    expect(store.load()).toMatchObject({ ok: true, value: [{ id: 'phone-aaaa' }, { id: 'phone-bbbb' }] });
  });
});

describe('answer tokens', () => {
  it('one token per question, spent by its answer, expired when the question changes or goes', () => {
    const t = new AnswerTokens();
    const a = t.issue('s1', 'q1');
    expect(t.issue('s1', 'q1')).toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.check(a)).toEqual({ ok: true, sessionId: 's1', questionId: 'q1' });
    const other = t.issue('s2', 'q9');
    t.questionChanged('s1', 'q2');
    expect(t.check(a)).toEqual({ ok: false, reason: 'questionGone' });
    expect(t.check(other).ok).toBe(true);
    const b = t.issue('s1', 'q2');
    t.spend(b);
    expect(t.check(b)).toEqual({ ok: false, reason: 'tokenUsed' });
    t.questionChanged('s2', null);
    expect(t.check(other)).toEqual({ ok: false, reason: 'questionGone' });
    expect(t.check('never-issued')).toEqual({ ok: false, reason: 'unknownToken' });
  });
});

describe("what a push service's answer leads to", () => {
  const now = 1_000_000;
  it('201 is sent; 404 and 410 remove; another 4xx fails without retrying', () => {
    expect(pushDecision(201, undefined, 3, now)).toEqual({ action: 'sent' });
    expect(pushDecision(404, undefined, 0, now).action).toBe('remove');
    expect(pushDecision(410, undefined, 0, now).action).toBe('remove');
    expect(pushDecision(400, undefined, 0, now).action).toBe('failed');
    expect(pushDecision(413, undefined, 0, now).action).toBe('failed');
  });

  it('429, 5xx and no answer back off: Retry-After when given (seconds or a date, capped), else doubling up to the cap', () => {
    expect(pushDecision(429, '120', 0, now)).toMatchObject({ action: 'backoff', retryAt: now + 120_000 });
    expect(pushDecision(503, new Date(now + 30_000).toUTCString(), 0, now)).toMatchObject({ action: 'backoff' });
    expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(pushDecision(429, '999999', 0, now)).toMatchObject({ retryAt: now + RETRY_AFTER_CAP_MS });
    expect(pushDecision(500, undefined, 0, now)).toMatchObject({ retryAt: now + BACKOFF_FIRST_MS });
    expect(pushDecision(502, undefined, 3, now)).toMatchObject({ retryAt: now + BACKOFF_FIRST_MS * 8 });
    expect(pushDecision(null, undefined, 30, now)).toMatchObject({ action: 'backoff', retryAt: now + BACKOFF_CAP_MS });
    expect(retryAfterMs('soon', now)).toBeNull();
  });
});

describe('the payload', () => {
  const payload = {
    v: 1,
    kind: 'attention',
    session: 's1',
    url: '/#s=s1',
    agent: 'Claude Code',
    folder: 'api',
    question: { text: 'Do you want to proceed?', choices: ['Yes', 'No'], token: 't'.repeat(43) },
    sentAt: 5,
  };
  it('parses a version-1 payload and refuses another version, or more than three choices', () => {
    expect(PushPayloadSchema.parse(payload)).toEqual(payload);
    expect(PushPayloadSchema.safeParse({ ...payload, v: 2 }).success).toBe(false);
    expect(PushPayloadSchema.safeParse({ ...payload, question: { ...payload.question, choices: ['a', 'b', 'c', 'd'] } }).success).toBe(false);
    expect(PushPayloadSchema.safeParse({ ...payload, url: 'https://elsewhere.example/' }).success).toBe(false);
  });

  it('shows as "<agent> needs you · <folder>", the question, one action per choice, one tag per session', () => {
    expect(pushNotification(PushPayloadSchema.parse(payload))).toEqual({
      title: 'Claude Code needs you · api',
      body: 'Do you want to proceed?',
      tag: 'termio-s1',
      actions: [
        { action: 'choice-0', title: 'Yes' },
        { action: 'choice-1', title: 'No' },
      ],
    });
    const three = PushPayloadSchema.parse({ ...payload, question: { ...payload.question, choices: ['Yes', 'Yes, always', 'No'] } });
    expect(pushNotification(three, 2).actions).toEqual([
      { action: 'choice-0', title: 'Yes' },
      { action: 'choice-2', title: 'No' },
    ]);
    expect(pushNotification(three, 3).actions.map((a) => a.title)).toEqual(['Yes', 'Yes, always', 'No']);
    expect(choiceOfAction('choice-1')).toBe(1);
    expect(choiceOfAction('')).toBeNull();
  });

  it('takes only https endpoints and base64url keys in a registration', () => {
    const reg = { device: 'phone-aaaa', name: 'Pixel', subscription: { endpoint: 'https://fcm.googleapis.com/x', keys: { p256dh: 'BA_-', auth: 'aa' } } };
    expect(PushRegisterSchema.safeParse(reg).success).toBe(true);
    expect(PushRegisterSchema.safeParse({ ...reg, subscription: { ...reg.subscription, endpoint: 'http://10.0.0.1/x' } }).success).toBe(false);
    expect(PushRegisterSchema.safeParse({ ...reg, subscription: { ...reg.subscription, keys: { p256dh: 'a b', auth: 'aa' } } }).success).toBe(false);
    expect(PushRegisterSchema.safeParse({ ...reg, device: 'x' }).success).toBe(false);
  });
});

describe('a push that cannot be sent', () => {
  it('is logged and leaves the host running (no unhandled rejection), the next one is tried again', async () => {
    const h = home();
    new PushDevices(h).update(() => [device('phone-aaaa')]);
    loadVapidKeys(h, () => ({ publicKey: 'B'.repeat(87), privateKey: 'k'.repeat(43) }));
    const states = new Emitter<StateChange>();
    const record = { id: 's1', state: 'attention', cwd: '/work/api', agentId: null, title: '', failure: null } as unknown as SessionRecord;
    const errors: string[] = [];
    let tries = 0;
    const push = new CompanionPush({
      termioHome: h,
      userHome: '/home/u',
      registry: { get: (id: string) => (id === 's1' ? record : undefined), onRemoved: new Emitter<SessionRecord>().event, onStateChanged: states.event },
      questions: { get: () => null, onQuestion: new Emitter<never>().event, answer: () => ({ ok: false, code: 'noQuestion', message: '', question: null }) },
      lookingAt: () => null,
      active: () => true,
      agentName: () => 'Claude Code',
      logger: { debug() {}, info() {}, warn() {}, error: (m: string, f?: Record<string, unknown>) => void errors.push(`${m}: ${String(f?.error)}`) },
      send: () => {
        tries++;
        throw new Error('the sender broke');
      },
    });
    try {
      states.fire({ record } as StateChange);
      await waitFor(() => errors.length === 1, { what: 'the failure logged' });
      expect(errors).toEqual(['push: not sent: the sender broke']);
      // The session moves on and needs you again: pushed again (and failing again, said again).
      Object.assign(record, { state: 'working' });
      states.fire({ record } as StateChange);
      Object.assign(record, { state: 'attention' });
      states.fire({ record } as StateChange);
      await waitFor(() => tries === 2 && errors.length === 2, { what: 'the next push tried and its failure logged' });
    } finally {
      push.dispose();
    }
  });
});
