// The phone page with another machine, in a real browser (chromium, headless) against a host in
// this process whose hub reaches a real sshd on loopback (test/helpers/sshRig.ts: a second local
// user with its own HOME and TERMIO_HOME is the machine "box"). The page lists box's session under
// box's name beside this machine's, mirrors its screen from the frames the hub relays, types into
// it (the session takes the page's size only then), follows it back after the ssh client is killed,
// and drops it when it is closed there. A question its agent asks there is shown as box read it,
// and a tap answers it there. A conversation held on box is found by this host's history search
// (box's index, asked through the hub) and a tap on it on the page resumes it there.
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostClient } from '../../src/app/client/hostClient';
import type { SessionInfo } from '../../src/protocol/sessionInfo';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { repoRoot, startHostInProcess } from '../helpers/companionHost';
import { REMOTE_USER, sshRigUnavailable, startSshRig, type SshRig } from '../helpers/sshRig';
import { writeClaudeConversation } from '../helpers/historyFixture';
import { waitFor } from '../helpers/waitFor';
import { installFakeAgents, screenshotDir } from './harness';

type Host = Awaited<ReturnType<typeof startHostInProcess>>;
const FAKE_MENU = resolve(__dirname, '..', 'fakes', 'fakeMenuAgent.mjs');

describe.skipIf(sshRigUnavailable())('the phone page with another machine', () => {
  let rig: SshRig;
  let browser: Browser;
  let host: Host;
  let client: HostClient;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    rig = await startSshRig(repoRoot);
    // An agent of box's own catalog (a user manifest there), blocked on a permission menu.
    const agents = join(rig.remoteTermioHome, 'config', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, 'fakemenu.json'), JSON.stringify({ id: 'fakemenu', name: 'Fake Menu', command: FAKE_MENU }));
    for (const p of [join(rig.remoteTermioHome, 'config'), agents, join(agents, 'fakemenu.json')]) chownSync(p, rig.uid, rig.uid);
    browser = await launchChromium();
    host = await startHostInProcess();
    client = await host.client();
    const added = await client.request('machines.add', {
      name: 'box',
      target: `${REMOTE_USER}@127.0.0.1`,
      port: rig.port,
      identity: rig.identity,
      sshOptions: rig.sshOptions,
      remoteCommand: rig.remoteCommand,
    });
    if (!added.ok) throw new Error(added.error.message);
    await waitFor(() => host.host.hub.link('box')?.state === 'connected', { what: 'box to connect', timeout: 30_000 });
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts.splice(0)) await c.close();
    await browser?.close();
    await host?.stop();
    await rig?.stop();
  }, 60_000);

  async function newPage(): Promise<Page> {
    const ctx = await browser.newContext(PHONE_CONTEXT);
    contexts.push(ctx);
    return ctx.newPage();
  }

  /** box's session as box's own host sees it (its size, its screen). */
  async function onBox(id: string): Promise<{ cols: number; rows: number; screen: string }> {
    const r = await client.requestAny('sessions.read', { id }, 15_000);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as { lines: string[]; cols: number; rows: number };
    return { cols: res.cols, rows: res.rows, screen: res.lines.join('\n') };
  }

  /** The ssh clients this host runs. */
  function sshClients(): number[] {
    return readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .filter((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'ssh' &&
            readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HOME=${host.home}`)
          );
        } catch {
          return false;
        }
      });
  }

  it("lists box's session under its name, mirrors and types into it, and follows it through a reconnect", async () => {
    const local = await host.spawnShell('here shell');
    const run = await client.requestAny(
      'sessions.run',
      { machine: 'box', cwd: rig.remoteHome, argv: ['/usr/bin/env', 'PS1=$ ', 'ENV=', '/bin/sh'], title: 'box shell', cols: 100, rows: 30 },
      30_000,
    );
    if (!run.ok) throw new Error(run.error.message);
    const remote = (run.result as { session: SessionInfo }).session;
    expect(remote.machine).toBe('box');
    expect([remote.cols, remote.rows]).toEqual([100, 30]);
    await client.requestAny('sessions.send', { id: remote.id, text: 'echo remote-$((6*7))', enter: true }, 15_000);
    await waitFor(async () => (await onBox(remote.id)).screen.includes('remote-42'), { what: 'the remote shell to answer' });

    const page = await newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    const row = page.locator(`.row[data-session="${remote.id}"]`);
    await waitFor(() => row.count(), { what: "box's session on the page" });
    expect(await row.getAttribute('data-machine')).toBe('box');
    expect(await page.locator(`.row[data-session="${local}"]`).getAttribute('data-machine')).toBeNull();
    // This machine's folders first, then box's, headed with its name.
    const headings = await page.locator('#groups h2').allTextContents();
    expect(headings).toEqual([expect.not.stringContaining('box'), 'box · remote-home']);
    await page.screenshot({ path: join(screenshotDir, 'companion-machines-list.png') });

    // Open it: the screen comes from box's frames; watching does not resize it.
    await row.click();
    const rows = page.locator('#term .xterm-rows');
    await waitFor(async () => (await rows.textContent())?.includes('remote-42'), { what: "box's screen in the page" });
    expect(await page.locator('#heading').textContent()).toBe('box shell');
    const watched = await onBox(remote.id);
    expect([watched.cols, watched.rows]).toEqual([100, 30]);
    expect(await page.evaluate(() => document.querySelector('#term-view')?.getAttribute('data-holding'))).not.toBe('true');

    // Typing goes to box; the session takes the page's size; the echo comes back as frames.
    await page.locator('#term .xterm').click();
    await page.keyboard.type('echo typed-on-the-phone');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await onBox(remote.id)).screen.includes('\ntyped-on-the-phone'), { what: 'the typed line to run on box' });
    await waitFor(async () => (await rows.textContent())?.includes('$ echo typed-on-the-phone'), { what: 'the echo in the page' });
    await waitFor(async () => (await onBox(remote.id)).cols < 100, { what: "box's session to take the page's size" });
    await waitFor(async () => (await page.evaluate(() => document.querySelector('#term-view')?.getAttribute('data-holding'))) === 'true', {
      what: 'the page to hold the input',
    });
    await page.screenshot({ path: join(screenshotDir, 'companion-machines-term.png') });

    // The ssh client killed: the page's view comes back with the screen as it is now.
    const before = sshClients();
    expect(before).toHaveLength(1);
    process.kill(before[0]!, 'SIGKILL');
    await waitFor(() => host.host.hub.link('box')?.state === 'reconnecting', { what: 'box to drop' });
    await waitFor(() => host.host.hub.link('box')?.state === 'connected', { what: 'box to come back', timeout: 30_000 });
    await page.keyboard.type('echo after-the-drop');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await rows.textContent())?.includes('$ echo after-the-drop'), { what: 'typing after the reconnect' });
    // The same process, seen from box's own host after the reconnect.
    expect(host.host.hub.session(remote.id)?.pid).toBe(remote.pid);

    // Closed on box: the page leaves the terminal, and the list drops it.
    const closed = await client.requestAny('sessions.close', { id: remote.id }, 15_000);
    expect(closed.ok).toBe(true);
    await waitFor(async () => (await row.count()) === 0, { what: 'the closed session to leave the list' });
  }, 120_000);

  it("shows the question box's agent asks, as box read it, and a tap answers it there", async () => {
    const spawned = await client.requestAny('sessions.spawn', { machine: 'box', agent: 'fakemenu', cwd: rig.remoteHome, title: 'deploy on box' }, 30_000);
    if (!spawned.ok) throw new Error(spawned.error.message);
    const id = (spawned.result as { id: string }).id;
    const page = await newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    const card = page.locator(`#needs .question[data-session="${id}"]`);
    await waitFor(async () => (await card.locator('.q-text').textContent()) === 'Do you want to proceed?', {
      what: "box's question on the page",
      timeout: 20_000,
    });
    expect(await card.locator('.c-label').allTextContents()).toEqual(['Yes', "Yes, and don't ask again for rm commands", 'No']);
    await page.screenshot({ path: join(screenshotDir, 'companion-machines-question.png') });
    await card.locator('.choice', { hasText: /^Yes$/ }).click();
    await waitFor(async () => (await onBox(id)).screen.includes('received: Yes'), { what: 'the agent on box to receive Yes' });
  }, 90_000);

  it("finds a conversation held on box by this host's search, and a tap on the page resumes it there", async () => {
    // On box: a stand-in `claude` on its login shell's PATH (bash reads ~/.bash_profile), and a
    // Claude Code conversation in a folder of box's.
    installFakeAgents(rig.remoteHome, ['claude']);
    const project = join(rig.remoteHome, 'proj');
    mkdirSync(project, { recursive: true });
    const id = '22222222-3333-4444-8555-666666666666';
    writeClaudeConversation(rig.remoteHome, id, project, 'NARWHAL');
    spawnSync('chown', [
      '-R',
      `${rig.uid}:${rig.uid}`,
      join(rig.remoteHome, 'bin'),
      join(rig.remoteHome, '.bash_profile'),
      project,
      join(rig.remoteHome, '.claude'),
    ]);
    await waitFor(
      async () => {
        const r = await client.requestAny('history.status', { machine: 'box' }, 15_000);
        return r.ok && (r.result as { conversations: number; indexing: boolean }).conversations === 1;
      },
      { what: 'box to index its conversation', timeout: 30_000 },
    );
    // This host's search (what `termio history search` sends) asks box too.
    const found = await client.requestAny('history.search', { query: 'narwhal' }, 15_000);
    if (!found.ok) throw new Error(found.error.message);
    expect((found.result as { results: unknown[] }).results).toEqual([
      expect.objectContaining({ agent: 'claude', conversation: id, cwd: project, machine: 'box' }),
    ]);

    const page = await newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    await waitFor(() => page.locator('#search').isVisible(), { what: 'the search box' });
    await page.locator('#search').fill('narwhal');
    const hit = page.locator('#search-hits .hit');
    await waitFor(async () => (await hit.count()) === 1, { what: "box's conversation in the results" });
    expect(await hit.locator('.facts').textContent()).toMatch(/^Claude Code on box · \/\S+\/proj · \w/);
    await page.screenshot({ path: join(screenshotDir, 'companion-machines-history.png') });
    await hit.click();
    await waitFor(() => page.locator('#term-view').isVisible(), { what: 'the page to open the session resumed on box', timeout: 30_000 });
    const listed = await client.requestAny('sessions.list', {}, 15_000);
    if (!listed.ok) throw new Error(listed.error.message);
    const resumed = (listed.result as { sessions: SessionInfo[] }).sessions.filter((x) => x.machine === 'box' && x.agentId === 'claude');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.cwd).toBe(project);
    expect(resumed[0]!.argv.join(' ')).toMatch(new RegExp(`--resume ${id}\\b`));
  }, 90_000);
});
