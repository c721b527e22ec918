// The Linux desktop entry: installed for a user, its Exec line starts Termio; uninstall removes it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppUnderTest, Display, e2eSkipReason, repoRoot } from './harness';

/** Splits an Exec value per the Desktop Entry spec's quoting, dropping field codes like %F. */
function execArgv(exec: string): string[] {
  const args: string[] = [];
  for (const m of exec.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const arg = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!;
    if (!/^%[fFuUdDnNickvm]$/.test(arg)) args.push(arg);
  }
  return args;
}

describe.skipIf(e2eSkipReason)('Linux desktop entry', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
  });
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async () => {
    if (app) {
      app.screenshot('desktop-entry');
      await app.stop();
      await app.cleanup();
    }
  });

  it('installs a valid entry whose Exec line starts Termio', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-desktop-'));
    const env = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'share') };
    const r = spawnSync(join(repoRoot, 'packaging', 'linux', 'install.sh'), { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const file = join(home, 'share', 'applications', 'termio.desktop');
    const entry = readFileSync(file, 'utf8');
    expect(entry).toMatch(/^\[Desktop Entry\]\n/);
    expect(entry).toContain('\nName=Termio\n');
    expect(entry).toContain('\nIcon=termio\n');
    expect(existsSync(join(home, 'share', 'icons', 'hicolor', 'scalable', 'apps', 'termio.svg'))).toBe(true);
    // desktop-file-utils is one of the packages npm test installs: its absence fails, never skips.
    const v = spawnSync('desktop-file-validate', [file], { encoding: 'utf8' });
    expect(v.error, 'desktop-file-validate (Debian: desktop-file-utils) must be installed to validate the entry').toBeUndefined();
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout + v.stderr).not.toMatch(/error/i);
    const exec = entry.match(/^Exec=(.*)$/m)![1]!;
    app = await AppUnderTest.launch(display, { home, command: execArgv(exec) });
    await app.waitForWindow('Termio', 10_000);

    const u = spawnSync(join(repoRoot, 'packaging', 'linux', 'install.sh'), ['--uninstall'], { env, encoding: 'utf8' });
    expect(u.status).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});
