// A real session host (HostProcess, in this process) in a temporary HOME and TERMIO_HOME, for tests
// that put fake agents on its PATH and read what it logged: a `bin` folder first on PATH, a `proj`
// folder to start sessions in, no session of an outer Termio in the environment, and every log
// line kept in order. No notification is shown and no app is started.
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostProcess } from '../../src/app/host/hostProcess';
import type { Logger } from '../../src/app/services/log';

export interface HostHome {
  home: string;
  /** A folder to start sessions in. */
  proj: string;
  /** First on PATH: where a test writes its fake agents. */
  bin: string;
  env: NodeJS.ProcessEnv;
}

/** Makes the folders and the environment; write the fake agents into bin before starting the host. */
export function makeHostHome(prefix: string): HostHome {
  // realpath: macOS's tmpdir is a symlink, and sessions report the resolved folder.
  const home = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const proj = join(home, 'proj');
  const bin = join(home, 'bin');
  for (const d of [proj, bin]) mkdirSync(d);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: `${bin}:${process.env.PATH}`, SHELL: '/bin/sh' };
  delete env.TERMIO_SESSION;
  delete env.TERMIO_SESSION_SECRET;
  return { home, proj, bin, env };
}

/** Starts the host on env (its PATH is the agents' PATH); `logs` gets each line as "message {fields}". */
export async function startLoggedHost(env: NodeJS.ProcessEnv): Promise<{ host: HostProcess; logs: string[] }> {
  const logs: string[] = [];
  const keep = (m: string, d?: Record<string, unknown>) => void logs.push(`${m} ${JSON.stringify(d ?? {})}`);
  const logger: Logger = { debug: () => undefined, info: keep, warn: keep, error: keep };
  const r = await HostProcess.start({
    env,
    logger,
    idleExitMs: 0,
    path: env.PATH!,
    notificationSink: { send: async () => undefined },
    startApp: () => undefined,
  });
  if (!r.ok) throw new Error(r.message);
  return { host: r.host, logs };
}
