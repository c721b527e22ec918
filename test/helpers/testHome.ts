// Tests that run a host in this process point this process's environment at their temporary HOME
// (the sessions the host starts inherit it: HOME, TERMIO_HOME, PATH, SHELL) and put it back after.
import { join } from 'node:path';
import { Host } from '../../src/app/host/host';
import type { HostOptions } from '../../src/app/host/hostServices';
import { nullLogger } from '../../src/app/services/log';

/** The environment as this test file found it. */
const saved = { ...process.env };

/** Points process.env at `home`: its .termio, `bin` first on PATH, /bin/sh, no session of an outer
 *  Termio; and `extra`. */
export function enterTestHome(home: string, bin: string, extra: Record<string, string> = {}): void {
  Object.assign(process.env, { HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: `${bin}:${saved.PATH}`, SHELL: '/bin/sh', ...extra });
  delete process.env.TERMIO_SESSION;
  delete process.env.TERMIO_SESSION_SECRET;
}

/** Puts process.env back as this test file found it. */
export function leaveTestHome(): void {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
}

/** A Host in this process on process.env, its notifications dropped unless `opts` says otherwise. */
export async function startHostHere(opts: Partial<HostOptions> = {}): Promise<Host> {
  const started = await Host.start({
    env: process.env,
    logger: nullLogger,
    path: process.env.PATH!,
    notificationSink: { send: async () => undefined },
    ...opts,
  });
  if (!started.ok) throw new Error(started.message);
  return started.host;
}
