// Web Push through the real host (a HostProcess with its companion on, in a temporary HOME): a
// fake agent blocked on a permission menu → the push reaches the test's own push service
// (test/helpers/pushService.ts: VAPID JWT verified, body decrypted with the subscription's keys)
// with the question and its choices → POST /api/push/answer with its token → the fake agent
// receives the chosen key; the token again is refused; a 410 removes the subscription; a 429 backs
// off without holding up another device; nothing is pushed while the session is in front.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import { PushPayloadSchema, type PushPayload } from '../../../src/protocol/push';
import { startHostInProcess, startHostProcess } from '../../helpers/companionHost';
import { startPushService, trustPushService, type PushService } from '../../helpers/pushService';
import { printedBy } from '../../helpers/printed';
import { waitFor } from '../../helpers/waitFor';

const FAKE_MENU = resolve(__dirname, '..', '..', 'fakes', 'fakeMenuAgent.mjs');
type Host = Awaited<ReturnType<typeof startHostInProcess>>;
let service: PushService;
let host: Host | null = null;
const clients: ControlClient[] = [];
let untrust = (): void => undefined;

beforeAll(async () => {
  service = await startPushService();
  untrust = trustPushService(service);
});
afterAll(async () => {
  untrust();
  await service?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await host?.stop();
  host = null;
  expect(service.problems).toEqual([]);
});

async function spawnFake(h: Host): Promise<string> {
  const c = await ControlClient.connect(h.env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  clients.push(c);
  const dir = join(h.home, 'work', 'site');
  mkdirSync(dir, { recursive: true });
  const r = await c.request('sessions.spawn', { agent: 'fakemenu', cwd: dir, title: 'deploy site' });
  if (!r.ok) throw new Error(r.error.message);
  return r.result.id;
}

async function api(
  h: Pick<Host, 'base' | 'token'>,
  method: string,
  path: string,
  body?: unknown,
  auth = true,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${h.base}${path}`, {
    method,
    headers: { ...(auth ? { Authorization: `Bearer ${h.token()}` } : {}), 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

async function register(h: Pick<Host, 'base' | 'token'>, device: string): Promise<string> {
  const sub = service.subscribe();
  const r = await api(h, 'POST', '/api/push/subscriptions', { device, name: `Phone ${device}`, subscription: sub.json });
  expect(r.status).toBe(200);
  return sub.id;
}

const pushesTo = (sub: string): PushPayload[] =>
  service.received.filter((p) => p.subscription === sub && p.status === 201).map((p) => PushPayloadSchema.parse(JSON.parse(p.plaintext)));
const screen = (h: Host, id: string): string => h.host.registry.get(id)!.session.screenLines().join('\n');

it('pushes a blocked question, answers it with the token once, and refuses the token again', async () => {
  host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  const key = await api(host, 'GET', '/api/push/key');
  expect(key.status).toBe(200);
  expect(key.json.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
  expect(statSync(join(host.env.TERMIO_HOME!, 'push-vapid.json')).mode & 0o777).toBe(0o600);
  expect((await api(host, 'GET', '/api/push/key', undefined, false)).status).toBe(401);
  const sub = await register(host, 'phone-one');
  expect(statSync(join(host.env.TERMIO_HOME!, 'push-subscriptions.json')).mode & 0o777).toBe(0o600);

  const id = await spawnFake(host);
  const printed = printedBy(host.host.registry.get(id)!.session);
  const first = await waitFor(() => pushesTo(sub).find((p) => p.question?.text === 'Do you want to proceed?'), { what: 'the question pushed' });
  expect(first).toMatchObject({ v: 1, kind: 'attention', session: id, url: `/#s=${id}`, agent: 'Fake Menu', folder: 'site' });
  expect(first.question!.choices).toEqual(['Yes', "Yes, and don't ask again for rm commands", 'No']);
  const raw = service.received.find((p) => p.subscription === sub)!;
  expect(raw.ttl).toBeGreaterThan(0);
  expect(raw.urgency).toBe('high');
  // Nothing from the screen beyond the question: the command it asks about stays in the host.
  expect(JSON.stringify(first)).not.toContain('rm -rf');

  // A wrong choice for the question's token is the book's refusal; the token survives it.
  const answer = (token: string, choice: number) => api(host!, 'POST', '/api/push/answer', { token, choice }, false);
  const ok = await answer(first.question!.token, 0);
  expect(ok).toEqual({ status: 200, json: { session: id, choice: 'Yes' } });
  await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  const again = await answer(first.question!.token, 2);
  expect(again.status).toBe(409);
  expect(again.json.reason).toMatch(/^(tokenUsed|questionGone)$/);

  // The next question is pushed with a token of its own; the first token does not answer it.
  const second = await waitFor(() => pushesTo(sub).find((p) => p.question?.text?.includes('edit to app.ts')), { what: 'the next question pushed' });
  expect(second.question!.token).not.toBe(first.question!.token);
  expect((await answer(first.question!.token, 0)).status).toBe(409);
  expect(screen(host, id)).not.toContain('received');
  // A token nobody issued: refused as unknown.
  expect((await answer('x'.repeat(43), 0)).json.reason).toBe('unknownToken');
  // The question changes before the tap: its token has expired.
  const before = host.host.host.questions.get(id)!.id;
  process.kill(host.host.registry.get(id)!.session.pid, 'SIGUSR1');
  await waitFor(() => (host!.host.host.questions.get(id)?.id ?? before) !== before, { what: 'the host to read the new question' });
  const stale = await answer(second.question!.token, 1);
  expect(stale).toMatchObject({ status: 409, json: { reason: 'questionGone' } });
  expect(screen(host, id)).not.toContain('received');
});

it('removes a subscription the push service says is gone, backs off on 429 without holding up others, and skips the session in front', async () => {
  host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  const gone = await register(host, 'phone-gone');
  const busy = await register(host, 'phone-busy');
  const fine = await register(host, 'phone-fine');
  service.answerNext(gone, { status: 410 });
  service.answerNext(busy, { status: 429, headers: { 'Retry-After': '3600' } });
  const id = await spawnFake(host);
  await waitFor(() => pushesTo(fine).some((p) => p.session === id && p.question), { what: 'the push to the healthy device' });
  const listed = await waitFor(
    async () => {
      const r = await (await host!.client()).request('companion.devices', {});
      if (!r.ok) throw new Error(r.error.message);
      const ids = r.result.devices.map((d) => d.id);
      return !ids.includes('phone-gone') && r.result.devices.find((d) => d.id === 'phone-busy')?.last?.outcome === 'waiting' ? r.result.devices : null;
    },
    { what: 'the gone device removed and the busy one waiting' },
  );
  expect(listed.map((d) => d.id).sort()).toEqual(['phone-busy', 'phone-fine']);
  expect(listed.find((d) => d.id === 'phone-busy')!.last!.retryAt! - Date.now()).toBeGreaterThan(3_000_000);
  expect(listed.find((d) => d.id === 'phone-fine')!.last).toMatchObject({ outcome: 'sent', status: 201 });

  // Answered from the terminal; the next question comes while the user looks at the session.
  host.host.host.setLookingAt(id);
  const pushed = pushesTo(fine).length;
  await (await host.client()).request('sessions.answer', { id, choice: '1', force: true });
  await waitFor(() => readFileSync(join(host!.home, 'host.log'), 'utf8').includes('push skipped: the session is in front in the focused window'), {
    what: 'the push skipped for the session in front',
  });
  expect(pushesTo(fine).length).toBe(pushed);
});

it('pushes "done" and "failed" only to devices that asked for them, and a revoke drops every device', async () => {
  host = await startHostInProcess();
  const asked = service.subscribe();
  const quiet = await register(host, 'phone-quiet');
  const r = await api(host, 'POST', '/api/push/subscriptions', {
    device: 'phone-asked',
    name: 'Phone asked',
    subscription: asked.json,
    options: { done: true, failed: true },
  });
  expect(r).toMatchObject({ status: 200, json: { options: { done: true, failed: true } } });
  const id = await host.spawnShell('build');
  const registry = host.host.registry;
  registry.setState(id, 'working', 'test');
  registry.setState(id, 'done', 'test');
  await waitFor(() => pushesTo(asked.id).find((p) => p.kind === 'done'), { what: 'the done push to the device that asked' });
  registry.setState(id, 'working', 'test');
  registry.setState(id, 'attention', 'test', { kind: 'auth', reason: 'API error 401: log in again' });
  const failed = await waitFor(() => pushesTo(asked.id).find((p) => p.kind === 'failed'), { what: 'the failed push' });
  expect(failed).toMatchObject({ session: id, failure: 'API error 401: log in again', question: null });
  // Pushes go out one per device at once: by now the quiet one would have had its own.
  expect(pushesTo(quiet)).toEqual([]);

  expect((await (await host.client()).request('companion.revoke', {})).ok).toBe(true);
  const after = await (await host.client()).request('companion.devices', {});
  expect(after.ok && after.result.devices).toEqual([]);
});

it('pushes from the termio-host process as shipped (the bundle loads web-push), trusting the service by NODE_EXTRA_CA_CERTS', async () => {
  const h = await startHostProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } }, env: { NODE_EXTRA_CA_CERTS: service.caFile } });
  try {
    const sub = await register(h, 'phone-bundle');
    const c = await h.client();
    const dir = join(h.home, 'work', 'api');
    mkdirSync(dir, { recursive: true });
    const r = await c.request('sessions.spawn', { agent: 'fakemenu', cwd: dir });
    if (!r.ok) throw new Error(r.error.message);
    const p = await waitFor(() => pushesTo(sub).find((x) => x.question), { what: 'the push from the host process' });
    expect(p).toMatchObject({ kind: 'attention', agent: 'Fake Menu', folder: 'api', question: { text: 'Do you want to proceed?' } });
  } finally {
    await h.stop();
  }
});
