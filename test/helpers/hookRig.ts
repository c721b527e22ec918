// The live-status path wired by hand, for tests below the app: a temporary HOME, a real hook server
// on its socket, a status tracker fed by it, and the session secrets the server checks reports
// against (a report counts only for a tracked session, with that session's secret).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookServer } from '../../src/app/host/status/hookServer';
import { termioPaths } from '../../src/app/services/paths';
import { StatusTracker } from '../../src/app/host/status/statusTracker';
import type { Session } from '../../src/terminal/node';
import { endProcessesWithHome, waitForExit } from './processes';
import { SessionSecrets } from './sessionSecrets';

export interface HookRig {
  /** The temporary HOME (resolved: real CLIs report their cwd without symlinks). */
  home: string;
  server: HookServer;
  tracker: StatusTracker;
  secrets: SessionSecrets;
  /** Hangs up the session when the rig closes, and waits for its process to be gone first (a real
   *  CLI writes into HOME while it shuts down). Returns the session. */
  own(session: Session, name: string): Session;
  /** Ends the owned sessions, anything else still running with this HOME, the tracker and the server, then removes HOME. */
  close(): Promise<void>;
}

export async function startHookRig(prefix: string): Promise<HookRig> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const tracker = new StatusTracker();
  const secrets = new SessionSecrets();
  const s = await HookServer.start({
    paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }),
    secretOf: (id) => (tracker.isTracked(id) ? secrets.secretOf(id) : undefined),
  });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  s.onReport((r) => tracker.handleReport(r));
  const owned: { session: Session; name: string }[] = [];
  return {
    home,
    server: s,
    tracker,
    secrets,
    own(session, name) {
      owned.push({ session, name });
      return session;
    },
    async close() {
      for (const { session, name } of owned.splice(0)) {
        const pid = session.pid;
        session.dispose();
        await waitForExit(pid, `${name} to exit after the hang-up`, 10_000);
      }
      // A real CLI may leave a daemon that escaped the session (Codex's `app-server`): it runs
      // with this HOME, so it is found and ended by that.
      await endProcessesWithHome(home);
      tracker.dispose();
      await s.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
