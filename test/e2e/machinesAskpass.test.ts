// A key with a passphrase, against a real sshd on loopback (test/helpers/sshRig.ts): the hub runs
// ssh with SSH_ASKPASS (bin/termio-askpass), so what ssh asks goes to the app. With no app
// attached the machine says it needs one ("open Termio"); once an app subscribes (a HostClient
// here, where the app would be) the hub tries again at once, the app gets the question as an
// event, a wrong answer is refused by ssh and asked again, the right one connects, and the
// passphrase is in no file of the hub's HOME.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostClient } from '../../src/app/client/hostClient';
import { endProcessesWithHome } from '../helpers/processes';
import { REMOTE_USER, sshRigUnavailable, startSshRig, type SshRig } from '../helpers/sshRig';
import { waitFor } from '../helpers/waitFor';

const repoRoot = join(__dirname, '..', '..');
const termio = join(repoRoot, 'bin', 'termio');
const PASSPHRASE = 'correct horse 7f3a battery';

interface Machine {
  name: string;
  state: string;
  why: string | null;
}

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) hits.push(...filesContaining(p, needle));
    else if (st.isFile() && readFileSync(p).includes(needle)) hits.push(p);
  }
  return hits;
}

describe.skipIf(sshRigUnavailable())('a passphrase asked in the app', () => {
  let rig: SshRig;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let app: HostClient | null = null;

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [termio, ...args], { env, cwd: home });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function box(): Promise<Machine | undefined> {
    const r = await cli(['machines', 'list', '--json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as { machines: Machine[] }).machines.find((m) => m.name === 'box') : undefined;
  }

  beforeAll(async () => {
    rig = await startSshRig(repoRoot);
    home = mkdtempSync(join(tmpdir(), 'termio-askpass-'));
    // No ssh-agent: the passphrase can only come from the user. Debug logging: not even it writes it.
    env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/bash', TERMIO_LOG_LEVEL: 'debug' };
    key = join(rig.dir, 'pass_key');
    const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-C', 'pass_key', '-f', key], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    appendFileSync(join(rig.dir, 'authorized_keys'), readFileSync(`${key}.pub`));
  }, 60_000);

  afterAll(async () => {
    app?.close();
    if (env) await cli(['host', 'stop']);
    if (home) {
      await endProcessesWithHome(home);
      rmSync(home, { recursive: true, force: true });
    }
    await rig?.stop();
  }, 60_000);

  it('says it needs the app, then asks the app, refuses a wrong answer, and connects with the right one', async () => {
    const added = await cli([
      'machines',
      'add',
      'box',
      `${REMOTE_USER}@127.0.0.1`,
      '--port',
      String(rig.port),
      '--identity',
      key,
      ...rig.sshOptions.flatMap((o) => ['--ssh-option', o]),
      '--remote-command',
      rig.remoteCommand,
    ]);
    expect(added.code).toBe(1);
    expect(added.stdout).toMatch(/^box saved: (unreachable|reconnecting): box needs a passphrase or code: open Termio to answer it/);
    expect((await box())?.why).toBe('box needs a passphrase or code: open Termio to answer it');

    // The app attaches: the hub tries at once, and ssh's question comes to the app.
    const c = await HostClient.connect(join(home, '.termio', 'run', 'host.sock'), { client: 'termio-app-test', version: '0' });
    if (!(c instanceof HostClient)) throw new Error(c.message);
    app = c;
    const asks: Array<{ id: string; machine: string; prompt: string }> = [];
    const done: string[] = [];
    c.onEvent((e) => {
      if (e.event === 'askpass') asks.push({ id: e.id, machine: e.machine, prompt: e.prompt });
      if (e.event === 'askpassDone') done.push(e.id);
    });
    expect((await c.request('app.subscribe', { restore: false })).ok).toBe(true);
    await waitFor(() => asks.length === 1, { what: "ssh's question to reach the app", timeout: 20_000 });
    expect(asks[0]).toMatchObject({ machine: 'box', prompt: expect.stringMatching(/passphrase for key .*pass_key/) });
    // While the user reads the question the machine waits, and says so.
    expect(await box()).toMatchObject({
      state: expect.not.stringMatching(/^connected$/),
      why: 'box waits for your answer in Termio (ssh asks for a passphrase or code)',
    });

    // A wrong answer: ssh refuses it and asks again (the first question is over).
    const wrong = await c.request('machines.answerAsk', { id: asks[0]!.id, answer: 'not it' });
    expect(wrong.ok && wrong.result.answered).toBe(true);
    await waitFor(() => asks.length === 2 && done.includes(asks[0]!.id), { what: 'ssh to ask again after a wrong passphrase', timeout: 20_000 });
    // An answer to a question that is over is not taken.
    const late = await c.request('machines.answerAsk', { id: asks[0]!.id, answer: PASSPHRASE });
    expect(late.ok && late.result.answered).toBe(false);

    expect((await c.request('machines.answerAsk', { id: asks[1]!.id, answer: PASSPHRASE })).ok).toBe(true);
    await waitFor(async () => (await box())?.state === 'connected', { what: 'box to connect with the passphrase', timeout: 20_000 });
    const spawned = await cli(['sessions', 'spawn', '--machine', 'box', '--json']);
    expect(spawned.code, spawned.stderr).toBe(0);

    // A helper that cannot prove it runs for the hub's ssh is refused.
    const forged = await c.request('machines.ask', { token: 'x'.repeat(32), prompt: 'Password:' });
    expect(forged.ok ? null : forged.error.code).toBe('forbidden');
    // Never stored: not in TERMIO_HOME (state, logs, settings) nor anywhere else in the hub's HOME.
    expect(filesContaining(home, PASSPHRASE)).toEqual([]);
  }, 120_000);
});
