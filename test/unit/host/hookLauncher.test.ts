// The stable hook launcher ($TERMIO_HOME/bin/termio-hook) on real files and processes: installed
// hooks run it, not a path into the checkout; it execs this build's reporter (native when built,
// else Node), delivering to a real hook server; with its reporter gone (a moved checkout) it exits
// 0 at once; and `termio hooks status` finds entries that run anything else and repairs them.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/app/cli/hooks';
import { defaultReporterLocation, ensureLauncher, launcherPath } from '../../../src/app/services/hookInstaller';
import type { HookServer } from '../../../src/app/host/status/hookServer';
import { termioPaths, type TermioPaths } from '../../../src/app/services/paths';
import type { HookReport } from '../../../src/protocol/hookReport';
import { startHookServer } from '../../helpers/hookServer';
import { buildNativeReporter } from '../../helpers/reporters';
import { waitFor } from '../../helpers/waitFor';

const REPO = resolve(__dirname, '..', '..', '..');
const SESSION = '0d6c1f7e-2b3a-4c5d-8e9f-a0b1c2d3e4f5';
const SECRET = 'n8Yq2Vb5Xc7Zr1Ws4Ut6Pl9Ok3Ij0Hg2Fe5Dc8Ba1Mm';
/** The launcher adds one sh start (a millisecond) to the reporter's bounded run; generous for a loaded machine. */
const LAUNCHER_BOUND_MS = 2_000;

let home: string;
let paths: TermioPaths;
let server: HookServer;
let reports: HookReport[];

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-launcher-')));
  paths = termioPaths({ TERMIO_HOME: join(home, '.termio') });
  ({ server, reports } = await startHookServer(paths, (id) => (id === SESSION ? SECRET : undefined)));
});
afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs the launcher as an agent's hook does: through sh, the payload on stdin. */
function runLauncher(
  args: string[],
  env: Record<string, string> = { TERMIO_SESSION: SESSION, TERMIO_SESSION_SECRET: SECRET },
): Promise<{ code: number | null; out: string; ms: number; shellPid: number }> {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn('/bin/sh', ['-c', `${launcherPath(paths)} ${args.join(' ')}`], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TERMIO_HOME: paths.home, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // A launcher that exits at once (its reporter gone) may close stdin before the payload is
    // written: that EPIPE is the case under test, not an error of the test.
    child.stdin.on('error', () => undefined);
    child.stdin.end('{"session_id":"c1"}');
    child.on('close', (code) => done({ code, out, ms: Date.now() - started, shellPid: child.pid! }));
  });
}

/** A package root as a checkout or an app bundle lays it out, with or without the native build. */
function packageRoot(withNative: boolean): string {
  const root = join(home, withNative ? 'with-native' : 'node-only');
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(join(REPO, 'bin', 'termio-hook'), join(root, 'bin', 'termio-hook'));
  if (withNative) {
    const built = buildNativeReporter();
    if (!('path' in built)) throw new Error(built.error);
    mkdirSync(join(root, 'native', 'termio-hook', 'build'), { recursive: true });
    copyFileSync(built.path, join(root, 'native', 'termio-hook', 'build', 'termio-hook'));
  }
  return root;
}

describe('the hook launcher', () => {
  it.each([
    ['the native reporter when it was built', true],
    ['the Node reporter without it', false],
  ])('execs %s, which delivers with the agent as its parent', async (_name, withNative) => {
    const root = packageRoot(withNative);
    const target = defaultReporterLocation(root);
    expect(target.reporterPath).toBe(withNative ? join(root, 'native', 'termio-hook', 'build', 'termio-hook') : join(root, 'bin', 'termio-hook'));
    expect(ensureLauncher(paths, target)).toEqual({ reporterPath: join(paths.home, 'bin', 'termio-hook') });
    expect(statSync(launcherPath(paths)).mode & 0o777).toBe(0o755);
    const r = await runLauncher(['claude', 'done', 'Stop']);
    expect(r).toMatchObject({ code: 0, out: '' });
    await waitFor(() => reports.length === 1, { what: 'the report through the launcher' });
    expect(reports[0]).toMatchObject({ agent: 'claude', state: 'done', event: 'Stop', payload: '{"session_id":"c1"}' });
    // exec: the launcher becomes the reporter, so the reporter's parent is the shell the "agent"
    // ran (or this process, when that shell exec'd the command itself), never the launcher.
    expect([r.shellPid, process.pid]).toContain(reports[0]!.parents[0]![0]);
  });

  it('exits 0 at once, silently, when its reporter is gone (a moved checkout) or outside Termio', async () => {
    const root = packageRoot(false);
    ensureLauncher(paths, defaultReporterLocation(root));
    rmSync(root, { recursive: true });
    const r = await runLauncher(['claude', 'done', 'Stop']);
    expect(r).toMatchObject({ code: 0, out: '' });
    expect(r.ms).toBeLessThan(LAUNCHER_BOUND_MS);
    expect(await runLauncher(['claude', 'done', 'Stop'], {})).toMatchObject({ code: 0, out: '' });
    expect(server.stats.accepted + server.stats.malformed).toBe(0);
  });

  it('is rewritten only when this build differs, and Termio re-points it', () => {
    const a = ensureLauncher(paths, defaultReporterLocation(packageRoot(false)));
    const before = statSync(launcherPath(paths)).mtimeMs;
    ensureLauncher(paths, defaultReporterLocation(join(home, 'node-only')));
    expect(statSync(launcherPath(paths)).mtimeMs).toBe(before);
    const b = ensureLauncher(paths, defaultReporterLocation(packageRoot(true)));
    expect(b).toEqual(a);
    expect(readFileSync(launcherPath(paths), 'utf8')).toContain(join(home, 'with-native', 'native', 'termio-hook', 'build', 'termio-hook'));
  });
});

describe('termio hooks and the launcher', () => {
  function cli(args: string[]) {
    let out = '';
    let err = '';
    const env = { HOME: home, TERMIO_HOME: paths.home, PATH: process.env.PATH };
    return run(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: home }).then((code) => ({ code, out, err }));
  }
  const settings = () =>
    JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
  const commands = () => Object.values(settings().hooks).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));

  it('install writes entries that run the launcher, never a path into the checkout', async () => {
    expect((await cli(['install', '--agent', 'claude'])).code).toBe(0);
    const ours = commands();
    expect(ours.length).toBeGreaterThan(0);
    for (const c of ours) expect(c).toMatch(new RegExp(`^\\[ -z "\\$TERMIO_SESSION" \\] \\|\\| ${launcherPath(paths)} claude \\w+ \\w+$`));
    expect(ours.join('\n')).not.toContain(REPO);
  });

  it("status finds entries that run a moved checkout or an old Node, and repairs them, keeping the user's", async () => {
    mkdirSync(join(home, '.claude'));
    // What an install from before the launcher left: the checkout's reporter, run by a Node that has since moved.
    const stale = (state: string, event: string) => ({
      hooks: [{ type: 'command', command: `[ -z "$TERMIO_SESSION" ] || /old/node/bin/node /old/checkout/bin/termio-hook claude ${state} ${event}` }],
    });
    const manifest = JSON.parse(readFileSync(join(REPO, 'agents', 'claude.json'), 'utf8')) as {
      hooks: { events: Array<{ on: string; state: string; matcher?: string }> };
    };
    const hooks: Record<string, unknown[]> = {};
    for (const e of manifest.hooks.events) (hooks[e.on] ??= []).push({ ...(e.matcher !== undefined ? { matcher: e.matcher } : {}), ...stale(e.state, e.on) });
    hooks.Stop!.push({ hooks: [{ type: 'command', command: 'say done' }] });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ model: 'opus', hooks }, null, 2));
    chmodSync(join(home, '.claude', 'settings.json'), 0o600);

    const s = await cli(['status', '--agent', 'claude', '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).agents).toEqual([expect.objectContaining({ agentId: 'claude', state: 'installed', action: 'repaired' })]);
    const after = commands();
    expect(after).toContain('say done');
    expect(after.filter((c) => c !== 'say done').every((c) => c.includes(` ${launcherPath(paths)} claude `))).toBe(true);
    expect(after.join('\n')).not.toContain('/old/');
    expect(settings()).toMatchObject({ model: 'opus' });
    expect(statSync(join(home, '.claude', 'settings.json')).mode & 0o777).toBe(0o600);
    // Repaired once: the next status finds nothing to do.
    expect(JSON.parse((await cli(['status', '--agent', 'claude', '--json'])).out).agents).toEqual([
      expect.objectContaining({ state: 'installed', action: 'none' }),
    ]);
  });
});
