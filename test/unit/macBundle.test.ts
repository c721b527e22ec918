// Termio.app without a Mac: the Info.plist parsed (not grepped), node-pty's spawn-helper made
// executable by set-up and by the build, and `build-app.sh --check` building the real bundle tree
// from this checkout, which the test then inspects itself: layout, plist keys, executable bits.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledQode, withoutEntryPreload } from '../../src/app/platform/launch';
import { checkMacBundle, compareVersions, MIN_MACOS, parsePlist } from '../../scripts/lib/macBundle.mjs';
import { ensureSpawnHelperExecutable, spawnHelpers } from '../../scripts/lib/nodePtyHelper.mjs';

const repo = resolve(__dirname, '..', '..');
const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version as string;
const mode = (file: string) => statSync(file).mode & 0o777;
const scratch = mkdtempSync(join(tmpdir(), 'termio-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('parsePlist', () => {
  it('reads the XML subset Info.plist uses into plain values', () => {
    const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <!-- a comment -->
  <key>Name</key><string>A &amp; B &lt;1&gt;</string>
  <key>On</key><true/>
  <key>Off</key><false/>
  <key>Count</key><integer>-3</integer>
  <key>Ratio</key><real>1.5</real>
  <key>Empty</key><string/>
  <key>List</key><array><string>x</string><dict><key>k</key><integer>1</integer></dict></array>
</dict>
</plist>
`;
    expect(parsePlist(text)).toEqual({ Name: 'A & B <1>', On: true, Off: false, Count: -3, Ratio: 1.5, Empty: '', List: ['x', { k: 1 }] });
  });

  it('rejects what is not a well-formed plist, naming the line', () => {
    const wrap = (body: string) => `<plist version="1.0">\n<dict>\n${body}\n</dict>\n</plist>`;
    expect(() => parsePlist(wrap('<key>A</key><string>1</string>\n<key>A</key><string>2</string>'))).toThrow(/line 4: key A appears twice/);
    expect(() => parsePlist(wrap('<key>A</key><strin>1</strin>'))).toThrow(/line 3: <strin> is not a plist value/);
    expect(() => parsePlist(wrap('<key>A</key><string>1'))).toThrow(/<string> is not closed/);
    expect(() => parsePlist(wrap('<string>no key</string>'))).toThrow(/expected <key> in <dict>/);
    expect(() => parsePlist(wrap('<key>A</key><true>yes</true>'))).toThrow(/<true> must be written <true\/>/);
    expect(() => parsePlist('<dict></dict>')).toThrow(/not a <plist>/);
  });

  it('compares macOS versions numerically', () => {
    expect(compareVersions('13.5', '13.5')).toBe(0);
    expect(compareVersions('14', '13.5')).toBe(1);
    expect(compareVersions('13.10', '13.5')).toBe(1);
    expect(compareVersions('12.0', '13.5')).toBe(-1);
  });
});

describe('Info.plist template', () => {
  const plist = () =>
    parsePlist(readFileSync(join(repo, 'packaging', 'macos', 'Info.plist.in'), 'utf8').replaceAll('@VERSION@', version)) as Record<string, unknown>;

  it('names qode as the main executable, and a bundle id and name macOS shows', () => {
    expect(plist()).toMatchObject({
      CFBundleExecutable: 'qode',
      CFBundleIdentifier: 'dev.termio.app',
      CFBundleName: 'Termio',
      CFBundlePackageType: 'APPL',
      NSPrincipalClass: 'NSApplication',
    });
  });

  it('asks for the macOS that NodeGUI’s Qt and qode’s Node run on', () => {
    expect(MIN_MACOS).toBe('13.5');
    expect(compareVersions(plist().LSMinimumSystemVersion as string, '13.5')).toBeGreaterThanOrEqual(0);
  });
});

describe('node-pty spawn-helper', () => {
  it('gets its execute bits back where npm left them off', () => {
    const dir = join(scratch, 'node-pty');
    for (const p of ['prebuilds/darwin-arm64', 'prebuilds/darwin-x64', 'build/Release']) mkdirSync(join(dir, p), { recursive: true });
    for (const p of ['prebuilds/darwin-arm64', 'prebuilds/darwin-x64', 'build/Release']) writeFileSync(join(dir, p, 'spawn-helper'), 'x');
    chmodSync(join(dir, 'prebuilds/darwin-arm64/spawn-helper'), 0o644);
    chmodSync(join(dir, 'prebuilds/darwin-x64/spawn-helper'), 0o600);
    chmodSync(join(dir, 'build/Release/spawn-helper'), 0o755);
    expect(ensureSpawnHelperExecutable(dir).sort()).toEqual([join(dir, 'prebuilds/darwin-arm64/spawn-helper'), join(dir, 'prebuilds/darwin-x64/spawn-helper')]);
    expect(mode(join(dir, 'prebuilds/darwin-arm64/spawn-helper'))).toBe(0o755);
    expect(mode(join(dir, 'prebuilds/darwin-x64/spawn-helper'))).toBe(0o711);
    expect(ensureSpawnHelperExecutable(dir)).toEqual([]);
  });

  it('is executable in this checkout after set-up', () => {
    const helpers = spawnHelpers(join(repo, 'node_modules', 'node-pty')).filter((f) => f.includes('darwin'));
    expect(helpers.length).toBeGreaterThan(0);
    for (const f of helpers) expect(mode(f) & 0o111, f).toBe(0o111);
  });
});

/** build-app.sh --check: tsc -b, then the bundle tree built and checked; about 25 s on 2 loaded
 *  cores, a minute with a cold tsc -b. Past this the script counts as hung and is killed. */
const BUILD_APP_BOUND_MS = 150_000;

describe('build-app.sh --check', () => {
  const out = join(scratch, 'out');
  const app = join(out, 'Termio.app');
  let build: ReturnType<typeof spawnSync> | undefined;
  const built = () => {
    build ??= spawnSync(join(repo, 'packaging', 'macos', 'build-app.sh'), ['--check', out], { encoding: 'utf8', timeout: BUILD_APP_BOUND_MS });
    return build;
  };

  it(
    'builds the bundle tree and passes its own check',
    () => {
      const r = built();
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`Built and checked ${app}`);
    },
    BUILD_APP_BOUND_MS + 10_000,
  );

  it('lays the bundle out the nodegui/packer way, with qode.json naming the entry point', () => {
    expect(built().status).toBe(0);
    const plist = parsePlist(readFileSync(join(app, 'Contents', 'Info.plist'), 'utf8')) as Record<string, unknown>;
    expect(plist.CFBundleExecutable).toBe('qode');
    expect(plist.CFBundleShortVersionString).toBe(version);
    expect(compareVersions(plist.LSMinimumSystemVersion as string, '13.5')).toBeGreaterThanOrEqual(0);
    const exe = join(app, 'Contents', 'MacOS', 'qode');
    expect(mode(exe) & 0o111).toBe(0o111);
    const cfg = JSON.parse(readFileSync(join(app, 'Contents', 'MacOS', 'qode.json'), 'utf8'));
    const entry = resolve(app, 'Contents', 'MacOS', cfg.distPath);
    expect(entry).toBe(join(app, 'Contents', 'Resources', 'app', 'dist', 'app', 'main.js'));
    expect(existsSync(entry)).toBe(true);
    expect(
      readFileSync(join(app, 'Contents', 'Resources', 'termio.icns'))
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('icns');
    // The launcher inside the bundle finds the bundle's qode; the duplicate under node_modules is gone.
    expect(bundledQode(join(app, 'Contents', 'Resources', 'app'))).toBe(exe);
    expect(existsSync(join(app, 'Contents', 'Resources', 'app', 'node_modules', '@nodegui', 'qode', 'binaries'))).toBe(false);
  });

  it('ships runtime dependencies only, the compiled hook reporter, and executable spawn-helpers', () => {
    expect(built().status).toBe(0);
    const res = join(app, 'Contents', 'Resources', 'app');
    expect(existsSync(join(res, 'node_modules', '@nodegui', 'nodegui', 'package.json'))).toBe(true);
    expect(existsSync(join(res, 'node_modules', 'vitest'))).toBe(false);
    expect(mode(join(res, 'native', 'termio-hook', 'build', 'termio-hook')) & 0o111).toBe(0o111);
    const helpers = spawnHelpers(join(res, 'node_modules', 'node-pty')).filter((f) => f.includes('darwin'));
    expect(helpers.length).toBeGreaterThan(0);
    for (const f of helpers) expect(mode(f) & 0o111, f).toBe(0o111);
  });

  it('the check names what is wrong in a broken bundle', () => {
    expect(built().status).toBe(0);
    const helper = spawnHelpers(join(app, 'Contents', 'Resources', 'app', 'node_modules', 'node-pty')).find((f) => f.includes('darwin'))!;
    chmodSync(helper, 0o644);
    const plistFile = join(app, 'Contents', 'Info.plist');
    writeFileSync(plistFile, readFileSync(plistFile, 'utf8').replace('<string>13.5</string>', '<string>12.0</string>'));
    rmSync(join(app, 'Contents', 'MacOS', 'qode.json'));
    const problems = checkMacBundle(app, version);
    expect(problems).toEqual([
      'Info.plist: LSMinimumSystemVersion is "12.0", expected 13.5 or later',
      expect.stringMatching(/^cannot read .*qode\.json: ENOENT/),
      `node-pty's ${helper} is not executable (every session would fail with "posix_spawnp failed")`,
    ]);
  });
});

describe('bundledQode', () => {
  it('finds the bundle’s main executable from the app folder, and nothing outside a bundle', () => {
    expect(bundledQode('/Applications/Termio.app/Contents/Resources/app')).toBe('/Applications/Termio.app/Contents/MacOS/qode');
    expect(bundledQode('/Users/me/src/termio')).toBeNull();
  });
});

describe('withoutEntryPreload', () => {
  const entry = '/Applications/Termio.app/Contents/Resources/app/dist/app/main.js';
  it('drops the --require qode adds for qode.json (its path is not normalised), keeping the user’s options', () => {
    const qodeAdded = ' --require /Applications/Termio.app/Contents/MacOS/../Resources/app/dist/app/main.js';
    expect(withoutEntryPreload(qodeAdded, entry)).toBe('');
    expect(withoutEntryPreload(`--max-old-space-size=4096${qodeAdded}`, entry)).toBe('--max-old-space-size=4096');
    expect(withoutEntryPreload('-r /opt/trace.js --require=/Applications/Termio.app/Contents/Resources/app/dist/app/main.js', entry)).toBe('-r /opt/trace.js');
    expect(withoutEntryPreload('--require /opt/other.js', entry)).toBe('--require /opt/other.js');
    expect(withoutEntryPreload(undefined, entry)).toBeUndefined();
  });
});

describe('the app entry in a session host process', () => {
  // In Termio.app qode preloads the app's entry into every process it runs: preloaded into the
  // host (which its starter marks), the entry must not start a second app.
  const entry = resolve(__dirname, '..', '..', 'dist', 'app', 'main.js');
  const preload = (marked: boolean) =>
    spawnSync(process.execPath, ['--require', entry, '-e', 'setTimeout(() => console.log("host script ran"), 200)'], {
      env: { PATH: process.env.PATH, HOME: tmpdir(), TERMIO_HOME: join(tmpdir(), 'no-termio-here'), ...(marked ? { TERMIO_HOST_PROCESS: '1' } : {}) },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('stays out of the way when the process is marked as the host', () => {
    const r = preload(true);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('host script ran\n');
    expect(r.status).toBe(0);
  });

  it('starts the app when it is not (no display here, so the start fails and says so)', () => {
    const r = preload(false);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('host script ran');
    // The app itself tried to start and said why it could not: no X display to connect to.
    expect(r.stderr).toMatch(/could not connect to display|no display|DISPLAY/i);
  });
});
