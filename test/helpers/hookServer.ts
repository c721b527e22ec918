// A real HookServer for tests, collecting every report it accepts.
import { HookServer } from '../../src/app/host/hookServer';
import type { TermioPaths } from '../../src/app/services/paths';
import type { HookReport } from '../../src/protocol/hookReport';

export async function startHookServer(
  paths: TermioPaths,
  secretOf: (id: string) => string | undefined,
): Promise<{ server: HookServer; reports: HookReport[] }> {
  const s = await HookServer.start({ paths, secretOf });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  const reports: HookReport[] = [];
  s.onReport((r) => reports.push(r));
  return { server: s, reports };
}
