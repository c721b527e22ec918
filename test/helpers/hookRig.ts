// The live-status path wired by hand, for tests below the app: a temporary HOME, a real hook server
// on its socket, a status tracker fed by it, and the session secrets the server checks reports
// against (a report counts only for a tracked session, with that session's secret).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookServer } from '../../src/app/host/hookServer';
import { termioPaths } from '../../src/app/host/paths';
import { StatusTracker } from '../../src/app/host/statusTracker';
import { SessionSecrets } from './sessionSecrets';

export interface HookRig {
  /** The temporary HOME (resolved: real CLIs report their cwd without symlinks). */
  home: string;
  server: HookServer;
  tracker: StatusTracker;
  secrets: SessionSecrets;
  /** Ends the tracker and the server and removes HOME. */
  close(): Promise<void>;
}

export async function startHookRig(prefix: string): Promise<HookRig> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const tracker = new StatusTracker();
  const secrets = new SessionSecrets();
  const s = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), secretOf: (id) => (tracker.isTracked(id) ? secrets.secretOf(id) : undefined) });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  s.onReport((r) => tracker.handleReport(r));
  return {
    home, server: s, tracker, secrets,
    async close() {
      tracker.dispose();
      await s.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
