// macOS's application menu, built in real Qt under Xvfb: the Quit action carries the Quit role
// (so Qt puts it in place of its own Quit, which would end the process without Termio's quit)
// and ⌘Q. Qt keeps the role on any platform; only macOS's menu bar acts on it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QtMenuRole } from '../../src/app/ui/appMenuSpec';
import { Display, e2eSkipReason, repoRoot } from './harness';

describe.skipIf(e2eSkipReason)('application menu', () => {
  let display: Display;
  beforeAll(async () => {
    display = await Display.start();
  });
  afterAll(async () => {
    await display?.stop();
  });

  it('gives Quit Termio the Quit role and ⌘Q in Qt itself', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'test', 'fixtures', 'appMenuProbe.js')], {
      env: { ...process.env, DISPLAY: display.name },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(report.linuxMenu).toBeNull();
    expect(report.actions).toEqual({
      quit: { text: 'Quit Termio', role: QtMenuRole.QuitRole, shortcut: 'Ctrl+Q' },
      quitEnd: { text: 'Quit and End All Sessions', role: QtMenuRole.ApplicationSpecificRole, shortcut: 'Ctrl+Alt+Q' },
    });
  });
});
