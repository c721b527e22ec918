// termio-host: the session host as its own process (no Qt). Started detached by `termio`
// commands on first need; logs to $TERMIO_HOME/logs/host.log; exits 0 when stopped or idle,
// 1 when another host already runs for this TERMIO_HOME (its live socket says so).
import { join } from 'node:path';
import { dropHostProcessEnv } from '../client/hostLauncher';
import { createLogger } from '../services/log';
import { HostProcess } from './hostProcess';
import { termioPaths } from '../services/paths';

/** Overrides the idle spell before the host exits (tests wait for it). */
const IDLE_ENV = 'TERMIO_HOST_IDLE_MS';

export async function main(): Promise<number> {
  // Only this process is the host: what it starts (sessions, the app) must not inherit the mark,
  // nor the allocator settings made for it.
  dropHostProcessEnv(process.env);
  const paths = termioPaths(process.env);
  const log = createLogger(join(paths.logsDir, 'host.log'), { stderr: process.env.TERMIO_LOG_STDERR === '1' });
  const idleRaw = process.env[IDLE_ENV];
  const idleExitMs = idleRaw !== undefined && /^\d+$/.test(idleRaw) ? Number(idleRaw) : undefined;
  const started = await HostProcess.start({ logger: log, idleExitMs });
  if (!started.ok) {
    log.warn('host not started', { message: started.message });
    process.stderr.write(`termio-host: ${started.message}\n`);
    return 1;
  }
  const host = started.host;
  // A detached host has no terminal; a hang-up from whoever started it is not a reason to go.
  process.on('SIGHUP', () => log.info('SIGHUP ignored'));
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void host.stop(sig));
  // A restart (`termio host restart`, an update): held agents keep running for the next host.
  process.once('SIGUSR2', () => void host.stop('SIGUSR2: restart', { keepAgents: true }));
  // A bug met while serving one client must not end every session the host holds: it is logged
  // (with its stack, to be fixed) and the host carries on.
  process.on('uncaughtException', (err) => log.error('uncaught exception', { error: err.stack ?? String(err) }));
  await host.stopped;
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`termio-host: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(70);
    },
  );
}
