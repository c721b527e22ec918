// Web Push for the companion: a session that needs you reaches a paired phone whose page is
// closed or locked. Devices register their browser's subscription (the page's "Notify this
// phone"); when a session turns to attention, every device gets a push — the agent, the folder,
// the question and its first choices, and an answer token (pushTokens.ts) — unless the user is
// looking at that session in the focused window (the rule desktop notifications follow). "done"
// and "failed" go only to devices that asked for them. Routes for the companion's HTTP API are
// here too: the VAPID key, (un)registering, and a notification action's answer, which goes
// through the same QuestionBook check as a tap on the page.
import { createHash } from 'node:crypto';
import {
  MAX_PUSH_ACTIONS,
  PUSH_PAYLOAD_VERSION,
  PushAnswerSchema,
  PushRegisterSchema,
  PushUnregisterSchema,
  type PushDevice,
  type PushDeviceInfo,
  type PushPayload,
  type PushResult,
} from '../../../../protocol/push';
import type { Disposable, Event } from '../../../../protocol/events';
import { describeIssues } from '../../../../protocol/hostMessages';
import type { Logger } from '../../../services/log';
import { folderLabels } from '../../../present/sidebarModel';
import { DONE_SETTLE_MS } from '../../notify/notificationRouter';
import type { QuestionBook } from '../../status/questionBook';
import type { SessionRecord, SessionRegistry, StateChange } from '../../sessions/sessionRegistry';
import type { ApiAnswer } from '../companionServer';
import { PushDevices, loadVapidKeys, type Loaded, type VapidKeys } from './pushStore';
import { loadWebPush, pushDecision, webPushSend, type SendFn } from './pushSender';
import { AnswerTokens, TOKEN_REFUSAL_TEXT } from './pushTokens';

/** How long a push service keeps an undelivered question for a phone that is off: an hour. */
export const PUSH_TTL_S = 3600;

export interface PushDeps {
  termioHome: string;
  userHome: string;
  registry: Pick<SessionRegistry, 'get' | 'onRemoved'> & { onStateChanged: Event<StateChange> };
  questions: Pick<QuestionBook, 'get' | 'onQuestion' | 'answer'>;
  /** The session shown in the focused window (NotificationRouter.lookingAt), or null. */
  lookingAt(): string | null;
  /** Whether the companion is on: a push's actions and taps need the page to be served. */
  active(): boolean;
  agentName(agentId: string | null): string;
  logger: Logger;
  /** Overrides web-push (unit tests). */
  send?: SendFn;
  now?: () => number;
}

/** A device's sending state in this host: backoff after 429/5xx, and what waits for it to end. */
interface Lane {
  failures: number;
  retryAt: number;
  timer: NodeJS.Timeout | null;
  /** The newest payload per session, held while backing off. */
  held: Map<string, PushPayload>;
}

const bad = (status: number, error: string, extra: Record<string, unknown> = {}): ApiAnswer => ({ status, body: { error, ...extra } });

export class CompanionPush implements Disposable {
  readonly devices: PushDevices;
  readonly tokens = new AnswerTokens();
  private vapid: Loaded<VapidKeys> | null = null;
  private sendFn: SendFn | null;
  private readonly lanes = new Map<string, Lane>();
  /** The question id last pushed per session in attention ('' = pushed without a question). */
  private readonly pushed = new Map<string, string>();
  private readonly subscriptions: Disposable[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;

  constructor(private readonly deps: PushDeps) {
    this.devices = new PushDevices(deps.termioHome);
    this.sendFn = deps.send ?? null;
    this.now = deps.now ?? Date.now;
    this.subscriptions.push(
      deps.registry.onStateChanged((c) => this.stateChanged(c.record)),
      deps.questions.onQuestion(({ sessionId, question }) => this.questionChanged(sessionId, question)),
      deps.registry.onRemoved((r) => {
        this.pushed.delete(r.id);
        this.tokens.questionChanged(r.id, null);
      }),
    );
  }

  /** The VAPID keys (made on first use), or why there are none. */
  async keys(): Promise<Loaded<VapidKeys>> {
    if (this.vapid?.ok) return this.vapid;
    const webpush = await loadWebPush();
    this.vapid = loadVapidKeys(this.deps.termioHome, () => webpush.generateVAPIDKeys());
    if (!this.vapid.ok) this.deps.logger.error('push: the VAPID keys cannot be used', { message: this.vapid.message });
    return this.vapid;
  }

  private stateChanged(r: SessionRecord): void {
    if (r.state !== 'attention') this.pushed.delete(r.id);
    if (r.state === 'done') {
      const t = setTimeout(() => {
        this.timers.delete(t);
        if (this.deps.registry.get(r.id)?.state === 'done') this.push(r.id, 'done');
      }, DONE_SETTLE_MS);
      t.unref();
      this.timers.add(t);
      return;
    }
    if (r.state !== 'attention') return;
    // The question book reads the question in the next turn of the loop; a question it finds is
    // pushed from questionChanged. One it does not find is still a session that needs you.
    setImmediate(() => {
      const now = this.deps.registry.get(r.id);
      if (now?.state === 'attention' && !this.pushed.has(r.id)) this.push(r.id, now.failure ? 'failed' : 'attention');
    });
  }

  private questionChanged(sessionId: string, q: { id: string; answered: unknown } | null): void {
    this.tokens.questionChanged(sessionId, q && !q.answered ? q.id : null);
    const r = this.deps.registry.get(sessionId);
    if (!q || q.answered || r?.state !== 'attention' || this.pushed.get(sessionId) === q.id) return;
    this.push(sessionId, r.failure ? 'failed' : 'attention');
  }

  /** The payload for a session now, or null when it is gone. */
  private payload(sessionId: string, kind: PushPayload['kind']): PushPayload | null {
    const r = this.deps.registry.get(sessionId);
    if (!r) return null;
    const q = kind === 'attention' ? this.deps.questions.get(sessionId) : null;
    const folder = folderLabels([r.cwd], this.deps.userHome).get(r.cwd) ?? r.cwd;
    return {
      v: PUSH_PAYLOAD_VERSION,
      kind,
      session: r.id,
      url: `/#s=${encodeURIComponent(r.id)}`,
      agent: this.deps.agentName(r.agentId),
      folder,
      question:
        q && !q.answered ? { text: q.text, choices: q.choices.slice(0, MAX_PUSH_ACTIONS).map((c) => c.label), token: this.tokens.issue(r.id, q.id) } : null,
      failure: kind === 'failed' && r.failure ? r.failure.reason : undefined,
      sentAt: this.now(),
    };
  }

  private push(sessionId: string, kind: PushPayload['kind']): void {
    if (kind !== 'done') this.pushed.set(sessionId, this.deps.questions.get(sessionId)?.id ?? '');
    if (!this.deps.active()) return;
    if (this.deps.lookingAt() === sessionId) {
      this.deps.logger.info('push skipped: the session is in front in the focused window', { session: sessionId });
      return;
    }
    const loaded = this.devices.load();
    if (!loaded.ok) {
      this.deps.logger.error('push: not sent, the subscriptions file is unusable', { message: loaded.message });
      return;
    }
    const to = loaded.value.filter((d) => kind === 'attention' || d.options[kind]);
    if (to.length === 0) return;
    const payload = this.payload(sessionId, kind);
    if (!payload) return;
    for (const d of to) this.deliverSafely(d, payload);
  }

  private lane(id: string): Lane {
    let l = this.lanes.get(id);
    if (!l) this.lanes.set(id, (l = { failures: 0, retryAt: 0, timer: null, held: new Map() }));
    return l;
  }

  /** deliver, with what it could not do logged: a push that fails never takes the host down. */
  private deliverSafely(device: PushDevice, payload: PushPayload): void {
    this.deliver(device, payload).catch((err: unknown) =>
      this.deps.logger.error('push: not sent', { device: device.id, session: payload.session, error: (err as Error).message ?? String(err) }),
    );
  }

  /** Sends one payload to one device, or holds it while that device's service asked to wait. */
  private async deliver(device: PushDevice, payload: PushPayload): Promise<void> {
    const lane = this.lane(device.id);
    if (lane.retryAt > this.now()) {
      lane.held.set(payload.session, payload);
      return;
    }
    const keys = await this.keys();
    if (!keys.ok) return;
    this.sendFn ??= webPushSend(keys.value);
    const r = await this.sendFn(device.subscription, JSON.stringify(payload), {
      ttl: PUSH_TTL_S,
      // Same topic per session: a push service replaces an older undelivered one for it.
      topic: createHash('sha256').update(payload.session).digest('base64url').slice(0, 32),
      urgency: payload.kind === 'attention' ? 'high' : 'normal',
    });
    this.outcome(device, lane, pushDecision(r.status, r.retryAfter, lane.failures, this.now()), r.status, r.message, payload);
  }

  private outcome(
    device: PushDevice,
    lane: Lane,
    d: ReturnType<typeof pushDecision>,
    status: number | null,
    message: string | undefined,
    p: PushPayload,
  ): void {
    const at = this.now();
    const log = { device: device.id, name: device.name, session: p.session, status, message: message || undefined };
    if (d.action === 'remove') {
      this.deps.logger.info('push: subscription removed', { ...log, why: d.why });
      this.remove(device.id);
      return;
    }
    let last: PushResult;
    if (d.action === 'backoff') {
      lane.failures++;
      lane.retryAt = d.retryAt;
      lane.held.set(p.session, p);
      this.scheduleRetry(device.id, lane);
      last = { at, outcome: 'waiting', status, message: d.why, retryAt: d.retryAt };
      this.deps.logger.warn('push: backing off', { ...log, why: d.why, retryInMs: d.retryAt - at });
    } else {
      if (d.action === 'sent') lane.failures = 0;
      last = d.action === 'sent' ? { at, outcome: 'sent', status } : { at, outcome: 'failed', status, message: d.why };
      if (d.action === 'failed') this.deps.logger.warn('push: refused', { ...log, why: d.why });
    }
    this.devices.update((all) => all.map((x) => (x.id === device.id ? { ...x, last } : x)));
  }

  private scheduleRetry(id: string, lane: Lane): void {
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = setTimeout(
      () => {
        lane.timer = null;
        const device = this.devices.load();
        const d = device.ok ? device.value.find((x) => x.id === id) : undefined;
        const held = [...lane.held.values()];
        lane.held.clear();
        if (d) for (const p of held) this.deliverSafely(d, p);
      },
      Math.max(0, lane.retryAt - this.now()),
    );
    lane.timer.unref();
  }

  /** Every device, as listed to the user; or why the file is unusable. */
  list(): Loaded<PushDeviceInfo[]> {
    const l = this.devices.load();
    if (!l.ok) return l;
    return {
      ok: true,
      value: l.value.map((d) => ({
        id: d.id,
        name: d.name,
        createdAt: d.createdAt,
        service: new URL(d.subscription.endpoint).host,
        options: d.options,
        last: d.last,
      })),
    };
  }

  /** Removes a device; false when there was none by that id. */
  remove(id: string): Loaded<boolean> {
    let found = false;
    const r = this.devices.update((all) => all.filter((d) => (d.id === id ? ((found = true), false) : true)));
    const lane = this.lanes.get(id);
    if (lane?.timer) clearTimeout(lane.timer);
    this.lanes.delete(id);
    return r.ok ? { ok: true, value: found } : r;
  }

  /** Revoke: the subscriptions were made under the old pairing, so every one goes. */
  forgetAll(): void {
    const l = this.devices.load();
    if (l.ok && l.value.length > 0) this.devices.update(() => []);
    for (const lane of this.lanes.values()) if (lane.timer) clearTimeout(lane.timer);
    this.lanes.clear();
  }

  /** `GET /api/push/key`. */
  async keyRoute(): Promise<ApiAnswer> {
    const k = await this.keys();
    return k.ok ? { status: 200, body: { publicKey: k.value.publicKey } } : bad(503, k.message);
  }

  /** `POST /api/push/subscriptions`. */
  register(body: unknown): ApiAnswer {
    const p = PushRegisterSchema.safeParse(body);
    if (!p.success) return bad(400, describeIssues(p.error, 'subscription'));
    const { device, name, subscription, options } = p.data;
    const r = this.devices.update((all) => {
      const old = all.find((d) => d.id === device);
      const next: PushDevice = {
        id: device,
        name,
        createdAt: old?.subscription.endpoint === subscription.endpoint ? old.createdAt : this.now(),
        subscription,
        options: options ?? old?.options ?? { done: false, failed: false },
        last: old?.subscription.endpoint === subscription.endpoint ? old.last : null,
      };
      // One subscription per device, and one device per subscription (a browser that re-registers under a new id).
      return [...all.filter((d) => d.id !== device && d.subscription.endpoint !== subscription.endpoint), next];
    });
    if (!r.ok) return bad(503, r.message);
    this.deps.logger.info('push: device registered', { device, name, service: new URL(subscription.endpoint).host });
    return { status: 200, body: { device, options: r.value.find((d) => d.id === device)!.options } };
  }

  /** `DELETE /api/push/subscriptions`. */
  unregister(body: unknown): ApiAnswer {
    const p = PushUnregisterSchema.safeParse(body);
    if (!p.success) return bad(400, describeIssues(p.error, 'request'));
    const r = this.remove(p.data.device);
    if (!r.ok) return bad(503, r.message);
    return r.value ? { status: 200, body: { removed: p.data.device } } : bad(404, `no device ${p.data.device} is registered`);
  }

  /** `POST /api/push/answer`: a notification action, authorised by its answer token only. */
  answer(body: unknown): ApiAnswer {
    const p = PushAnswerSchema.safeParse(body);
    if (!p.success) return bad(400, describeIssues(p.error, 'answer'));
    const t = this.tokens.check(p.data.token);
    if (!t.ok) return { ...bad(409, TOKEN_REFUSAL_TEXT[t.reason], { reason: t.reason }), ...(t.reason === 'unknownToken' ? { guess: true } : {}) };
    const r = this.deps.registry.get(t.sessionId);
    if (!r) return bad(409, 'that session is gone', { reason: 'noSuchSession', session: t.sessionId });
    const res = this.deps.questions.answer(r, String(p.data.choice + 1), t.questionId, false, 'a push notification');
    if (!res.ok) return bad(409, res.message, { reason: res.code, session: t.sessionId });
    this.tokens.spend(p.data.token);
    this.deps.logger.info('push: answered from a notification', { session: r.id, choice: res.choice });
    return { status: 200, body: { session: r.id, choice: res.choice } };
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const t of this.timers) clearTimeout(t);
    for (const lane of this.lanes.values()) if (lane.timer) clearTimeout(lane.timer);
  }
}
