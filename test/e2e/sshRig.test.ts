// The sshd rig's own promise: stopping one rig ends its remote processes and no other rig's, though
// both run as the same remote user (tests in parallel files each start their own).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, waitForExit } from '../helpers/processes';
import { sshRigUnavailable, startSshRig } from '../helpers/sshRig';

const repoRoot = join(__dirname, '..', '..');

describe.skipIf(sshRigUnavailable())('the sshd rig', () => {
  it("stops its own remote user's processes and leaves another rig's running", async () => {
    const a = await startSshRig(repoRoot);
    const b = await startSshRig(repoRoot);
    try {
      // A detached process each, as a remote host would be: not below either sshd.
      const start = (rig: typeof a) => Number(rig.asRemote(['sh', '-c', 'setsid sleep 600 >/dev/null 2>&1 < /dev/null & echo $!']).stdout.trim());
      const pa = start(a);
      const pb = start(b);
      expect(isAlive(pa) && isAlive(pb)).toBe(true);
      await a.stop();
      await waitForExit(pa, "rig a's process to end with it");
      expect(isAlive(pb)).toBe(true);
      await b.stop();
      await waitForExit(pb, "rig b's process to end with it");
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop().catch(() => undefined);
    }
  });
});
