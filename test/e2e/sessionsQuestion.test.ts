// `termio sessions question` and `termio sessions answer` (the real bin/termio against a real host)
// on a fake agent blocked on a permission menu: the question prints with its choices and keys;
// an answer to the question read goes through once; after the question changed, an answer is
// refused with the new question quoted (exit 1, code questionChanged), and --force sends anyway.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { repoRoot, startHostInProcess } from '../helpers/companionHost';
import { printedBy } from '../helpers/printed';
import { waitFor } from '../helpers/waitFor';

const FAKE_MENU = resolve(__dirname, '..', 'fakes', 'fakeMenuAgent.mjs');

let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

function termio(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [join(repoRoot, 'bin', 'termio'), ...args], { env }, (error, out, err) =>
      res({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

it('prints the question, answers the one read, and refuses an answer to one that changed', async () => {
  const host = await startHostInProcess({ enabled: false, agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  stop = () => host.stop();
  const client = await ControlClient.connect(host.env);
  if (!(client instanceof ControlClient)) throw new Error(client.message);
  try {
    const dir = join(host.home, 'site');
    mkdirSync(dir);
    const r = await client.request('sessions.spawn', { agent: 'fakemenu', cwd: dir });
    if (!r.ok) throw new Error(r.error.message);
    const id = r.result.id;
    const screen = (): string => host.host.registry.get(id)!.session.screenLines().join('\n');
    const printed = printedBy(host.host.registry.get(id)!.session);
    await waitFor(() => host.host.registry.get(id)?.state === 'attention', { what: 'the menu to make the session need you' });

    // Never read: refused, nothing sent.
    const unread = await termio(host.env, 'sessions', 'answer', id, 'Yes');
    expect(unread.code).toBe(1);
    expect(unread.err).toContain('read the question first');

    const q = await termio(host.env, 'sessions', 'question', id);
    expect(q.code).toBe(0);
    expect(q.out).toBe(
      [
        'Do you want to proceed?',
        '  Bash command',
        '  rm -rf build/cache',
        '  Remove the build cache',
        '',
        '❯ 1. Yes   [Enter]',
        "  2. Yes, and don't ask again for rm commands   [ArrowDown Enter]",
        '  3. No   [ArrowDown ArrowDown Enter]',
        '',
      ].join('\n'),
    );
    const answered = await termio(host.env, 'sessions', 'answer', id, 'yes', '--json');
    expect(answered.code).toBe(0);
    expect(JSON.parse(answered.out)).toMatchObject({ ok: true, choice: 'Yes', keys: ['Enter'] });
    await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
    // The log says who answered: here the user, from outside Termio.
    expect(readFileSync(join(host.home, 'host.log'), 'utf8')).toMatch(/question answered .*"choice":"Yes".*"by":"outside Termio"/);

    // The next question is asked; the one read is gone.
    await waitFor(() => screen().includes('make this edit'), { what: 'the next question' });
    const stale = await termio(host.env, 'sessions', 'answer', id, '1', '--json');
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.out)).toMatchObject({ ok: false, code: 'questionChanged' });
    expect(JSON.parse(stale.out).message).toContain('Do you want to make this edit to app.ts?');
    expect(screen()).not.toContain('received');
    const forced = await termio(host.env, 'sessions', 'answer', id, 'No', '--force');
    expect(forced).toMatchObject({ code: 0, out: 'answered: No\n' });
    await waitFor(() => printed().includes('received: No'), { what: 'the fake agent to receive No' });
  } finally {
    client.close();
  }
});

it("gives the app each waiting question and answers the tray's choice once, refusing a stale one", async () => {
  const host = await startHostInProcess({ enabled: false, agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  stop = () => host.stop();
  const app = await host.client();
  const events: Array<{ id: string; question: { id: string; text: string; choices: Array<{ label: string }> } | null }> = [];
  app.onEvent((e) => {
    if (e.event === 'session') events.push({ id: e.session.id, question: e.session.question });
  });
  const sub = await app.request('app.subscribe', { restore: false });
  if (!sub.ok) throw new Error(sub.error.message);
  const dir = join(host.home, 'site');
  mkdirSync(dir);
  const launched = await app.request('app.launch', { agentId: 'fakemenu', cwd: dir, bypass: false, windowId: 'w1' });
  if (!launched.ok) throw new Error(launched.error.message);
  const id = launched.result.session.id;
  const screen = (): string => host.host.registry.get(id)!.session.screenLines().join('\n');
  const printed = printedBy(host.host.registry.get(id)!.session);
  const asked = (text: string) => events.findLast((e) => e.id === id && e.question?.text === text)?.question ?? null;
  await waitFor(() => asked('Do you want to proceed?'), { what: 'the question in a session event' });
  const first = asked('Do you want to proceed?')!;
  expect(first.choices.map((c) => c.label)).toEqual(['Yes', "Yes, and don't ask again for rm commands", 'No']);
  const yes = await app.request('app.answer', { session: id, question: first.id, choice: 0 });
  expect(yes.ok && yes.result).toEqual({ answered: true, message: 'answered “Yes”' });
  await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  await waitFor(() => asked('Do you want to make this edit to app.ts?'), { what: 'the next question' });
  // The tray's menu still showed the first question: its choice is refused, nothing is sent.
  const stale = await app.request('app.answer', { session: id, question: first.id, choice: 0 });
  expect(stale.ok && stale.result.answered).toBe(false);
  expect(stale.ok && stale.result.message).toContain('the question changed');
  expect(screen()).not.toContain('received');
});

// Claude Code drops keys that come just after its menu appeared or after its event loop stalled
// (a loaded machine): the fake agent here drops the first reads of keys the same way.
it('sends an answer the agent dropped again until it is taken, and gives the question back when it never is', async () => {
  // One agent per deafness: a script that starts the fake agent with FAKE_MENU_DEAF set.
  const bin = mkdtempSync(join(tmpdir(), 'deafmenu-'));
  const agents = Object.fromEntries(
    [2, 4].map((n) => {
      const command = join(bin, `deaf${n}`);
      writeFileSync(command, `#!/bin/sh\nFAKE_MENU_DEAF=${n} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_MENU)}\n`, { mode: 0o755 });
      return [`deaf${n}`, { name: `Deaf Menu ${n}`, command }];
    }),
  );
  const host = await startHostInProcess({ enabled: false, agents });
  stop = async () => {
    await host.stop();
    rmSync(bin, { recursive: true, force: true });
  };
  const client = await ControlClient.connect(host.env);
  if (!(client instanceof ControlClient)) throw new Error(client.message);
  /** A session of the fake that drops its first `deaf` keys, and all it printed since it started. */
  const spawn = async (deaf: number): Promise<{ id: string; said: () => string }> => {
    const dir = join(host.home, `site${deaf}`);
    mkdirSync(dir);
    const r = await client.request('sessions.spawn', { agent: `deaf${deaf}`, cwd: dir });
    if (!r.ok) throw new Error(r.error.message);
    const id = r.result.id;
    const said = printedBy(host.host.registry.get(id)!.session);
    await waitFor(() => host.host.registry.get(id)?.state === 'attention', { what: 'the menu to make the session need you' });
    return { id, said };
  };
  try {
    // Two sends dropped: the third is taken.
    const dropsTwo = await spawn(2);
    expect((await termio(host.env, 'sessions', 'question', dropsTwo.id)).code).toBe(0);
    expect(await termio(host.env, 'sessions', 'answer', dropsTwo.id, 'Yes')).toMatchObject({ code: 0, out: 'answered: Yes\n' });
    await waitFor(() => dropsTwo.said().includes('received: Yes'), { what: 'the fake agent to receive Yes, sent again' });

    // Every send dropped (one read each, as Return is): after the last one the question is open
    // again, and a new answer is taken.
    const deaf = await spawn(4);
    const read = JSON.parse((await termio(host.env, 'sessions', 'question', deaf.id, '--json')).out);
    expect((await termio(host.env, 'sessions', 'answer', deaf.id, 'Yes')).code).toBe(0);
    const reopened = await waitFor(
      async () => {
        const q = JSON.parse((await termio(host.env, 'sessions', 'question', deaf.id, '--json')).out).question;
        return q && q.id !== read.question.id && q.answered === null ? q : null;
      },
      { what: 'the question open again after the last send was dropped' },
    );
    expect(reopened.text).toBe('Do you want to proceed?');
    expect(deaf.said()).not.toContain('received');
    expect(await termio(host.env, 'sessions', 'answer', deaf.id, 'No')).toMatchObject({ code: 0, out: 'answered: No\n' });
    await waitFor(() => deaf.said().includes('received: No'), { what: 'the fake agent to receive the new answer' });
  } finally {
    client.close();
  }
});
