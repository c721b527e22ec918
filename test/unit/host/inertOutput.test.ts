// Strings a session or another machine controls reach the user's terminal as text: a title given
// by a program inside a tab, carrying OSC 52 (write the clipboard), OSC 0 (retitle) and ED (clear
// the screen), is printed by the real `termio sessions list` and `sessions why` with every control
// character written out, and in --json as a JSON escape of the same value.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { createLogger } from '../../../src/app/services/log';
import { termio } from '../../helpers/controlHost';

let home: string;
let env: NodeJS.ProcessEnv;
let host: HostProcess;

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-inert-')));
  env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/sh' };
  delete env.TERMIO_SESSION;
  delete env.TERMIO_SESSION_SECRET;
  const r = await HostProcess.start({ env, logger: createLogger(join(home, 'host.log')), idleExitMs: 0, path: env.PATH!, startApp: () => undefined });
  if (!r.ok) throw new Error(r.message);
  host = r.host;
});

afterEach(async () => {
  await host.stop('test over');
  rmSync(home, { recursive: true, force: true });
});

const HOSTILE = 'T1\x1b]52;c;cHduZWQ=\x07\x1b]0;spoofed\x07\x1b[2J\u009b2J';

it('prints a hostile title with its control characters written out, never raw', async () => {
  const run = await termio(['sessions', 'run', '--title', HOSTILE, '--json', '--', 'sleep', '30'], env);
  expect(run.status, run.stderr).toBe(0);
  const id = (JSON.parse(run.stdout) as { id: string }).id;

  const list = await termio(['sessions', 'list'], env);
  expect(list.status).toBe(0);
  // eslint-disable-next-line no-control-regex -- no control character may be printed
  expect(list.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  expect(list.stdout).toContain('T1\\u001b]52;c;cHduZWQ=\\u0007\\u001b]0;spoofed\\u0007\\u001b[2J\\u009b2J');

  // JSON keeps the value: parsed back, the title is exactly what was given.
  const json = await termio(['sessions', 'list', '--json'], env);
  // eslint-disable-next-line no-control-regex -- nor in JSON, where C1 would otherwise pass raw
  expect(json.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  const listed = (JSON.parse(json.stdout) as { sessions: Array<{ id: string; title: string }> }).sessions.find((s) => s.id === id);
  expect(listed?.title).toBe(HOSTILE);
});
