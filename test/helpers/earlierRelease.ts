// An earlier release of Termio's host and CLI, built from this repository's own git history, so a
// test can run what users ran before an update and hand its sessions to the code under test. Built
// once per commit with this checkout's node_modules into a cache folder outside the repository
// ($TERMIO_BUILD_CACHE, else ~/.cache/termio: releases/<commit>/), as that commit's setup builds
// what the host runs: its own scripts/bundle.mjs (the host as the one file it ships), the session
// holder and the hook reporter in C. Its CLI, which the tests drive it with, is bundled the same
// way instead of compiled file by file by tsc: the same code, in seconds rather than minutes. A
// test copies the build into its own HOME, so no run changes the cache.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { build as esbuild } from 'esbuild';
import { holderCompileAttempts } from '../../scripts/lib/holderBuild.mjs';

const repoRoot = resolve(__dirname, '..', '..');

export type EarlierRelease = { ok: true; commit: string; dir: string } | { ok: false; reason: string };

/** Each step takes a few seconds, tens on a starved machine; only a hung one reaches this. */
const STEP_TIMEOUT_MS = 120_000;

function releasesDir(): string {
  return join(process.env.TERMIO_BUILD_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'termio'), 'releases');
}

/** Runs a command; null when it succeeded, else what went wrong (its last lines of output). */
function run(cmd: string, args: string[], cwd: string): Promise<string | null> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, timeout: STEP_TIMEOUT_MS, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (!err) return done(null);
      const said = `${stdout}${stderr}`.trim().split('\n').slice(-6).join(' | ');
      done(`\`${cmd} ${args.join(' ')}\` failed (${err.killed ? 'timed out' : `exit ${String(err.code)}`}): ${said}`);
    });
  });
}

/** The first compiler invocation that succeeds; null, or the last one's error. */
async function compile(attempts: string[][], cwd: string): Promise<string | null> {
  let failed: string | null = 'nothing to compile';
  for (const args of attempts) {
    failed = await run(process.env.CC || 'cc', args, cwd);
    if (failed === null) break;
  }
  return failed;
}

/** The CLI's entry, bundled as scripts/bundle.mjs bundles the host (at the path tsc gives it). */
async function bundleCli(dir: string): Promise<string | null> {
  try {
    await esbuild({
      entryPoints: [join(dir, 'src', 'app', 'cli', 'main.ts')],
      outfile: join(dir, 'dist', 'app', 'cli', 'main.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['@nodegui/nodegui', 'node-pty', 'node-notifier'],
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    return null;
  } catch (e) {
    return `bundling its CLI failed: ${(e as Error).message}`;
  }
}

/** What the host and its CLI need, built in `dir`, the tree of the commit: null, or why it failed. */
async function build(dir: string): Promise<string | null> {
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const holder = join(dir, 'native', 'termio-holder');
  const hook = join(dir, 'native', 'termio-hook');
  mkdirSync(join(holder, 'build'));
  mkdirSync(join(hook, 'build'));
  const failed =
    (await run(process.execPath, [join(dir, 'scripts', 'bundle.mjs')], dir)) ??
    (await bundleCli(dir)) ??
    (await compile(
      holderCompileAttempts(process.platform, [join(holder, 'termio-holder.c'), join(holder, 'wire.c')], join(holder, 'build', 'termio-holder')),
      dir,
    )) ??
    (await compile([['-O2', '-o', join(hook, 'build', 'termio-hook'), join(hook, 'termio-hook.c')]], dir));
  // Each test links node_modules to its own checkout's: a cached link would outlive a worktree.
  rmSync(join(dir, 'node_modules'));
  return failed;
}

/** The host and CLI of `commit` (a full hash), built or taken from the cache. */
export async function ensureEarlierRelease(commit: string): Promise<EarlierRelease> {
  const dir = join(releasesDir(), commit);
  if (existsSync(join(dir, '.built'))) return { ok: true, commit, dir };
  const has = () => run('git', ['cat-file', '-e', `${commit}^{commit}`], repoRoot);
  let present = await has();
  // A shallow clone (as some CI systems make) lacks older commits: its remote has them.
  if (present !== null && execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: repoRoot, encoding: 'utf8' }).trim() === 'true') {
    const fetched = await run('git', ['fetch', '--quiet', '--unshallow'], repoRoot);
    present = fetched ?? (await has());
  }
  if (present !== null) return { ok: false, reason: `this clone lacks commit ${commit} (a shallow clone whose remote cannot be reached?): ${present}` };
  // Built beside its place and renamed into it, so a build cut short is never taken for a release.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    let failed = (await run('git', ['archive', '--format=tar', '-o', join(tmp, 'tree.tar'), commit], repoRoot)) ?? (await run('tar', ['-xf', 'tree.tar'], tmp));
    rmSync(join(tmp, 'tree.tar'), { force: true });
    failed ??= await build(tmp);
    if (failed !== null) return { ok: false, reason: `building Termio at ${commit} failed: ${failed}` };
    writeFileSync(join(tmp, '.built'), `${new Date().toISOString()}\n`);
    if (!existsSync(dir)) renameSync(tmp, dir); // else another run built it meanwhile
    return { ok: true, commit, dir };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A copy of the release in `dest`, with this checkout's node_modules, its package.json version
 * marked with the commit (both trees may say the same version; a real update changes it, and the
 * app tells hosts of another version by it). Returns that version.
 */
export function installEarlierRelease(release: { commit: string; dir: string }, dest: string): string {
  cpSync(release.dir, dest, { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(dest, 'node_modules'));
  const pkg = JSON.parse(readFileSync(join(dest, 'package.json'), 'utf8')) as { version: string };
  const version = `${pkg.version}-${release.commit.slice(0, 7)}`;
  writeFileSync(join(dest, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  return version;
}
