#!/usr/bin/env node
// One-stop set-up behind `npm start` and `npm test`: system packages, npm packages, every
// native part (node-pty, better-sqlite3, NodeGUI's addon, our qode shim on Linux) and the TypeScript build.
// Each step checks a cheap stamp first, so a re-run with nothing changed costs well under a
// second. Plain Node with no dependencies: it must run before `npm install` ever has.
//
//   node scripts/setup.mjs             set up only
//   node scripts/setup.mjs --run-app   set up, then start Termio (npm start)
//   node scripts/setup.mjs --run-tests set up, then lint, typecheck and run every test (npm test)
import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { everyTestMustRun } from './lib/everyTestMustRun.mjs';
import { holderCompileAttempts } from './lib/holderBuild.mjs';
import { applyNodeguiPatches, nodeguiPatchesHash } from './lib/nodeguiPatches.mjs';
import { ensureSpawnHelperExecutable } from './lib/nodePtyHelper.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const isLinux = process.platform === 'linux';
const isMac = process.platform === 'darwin';
const mode = process.argv.includes('--run-app') ? 'app' : process.argv.includes('--run-tests') ? 'tests' : 'setup';
const quiet = process.env.TERMIO_SETUP_QUIET === '1';

// Debian packages: what building and running needs, and what the test suite drives.
const APT_RUNTIME = [
  'qt6-base-dev',
  'qt6-svg-dev',
  'libx11-dev',
  'libglib2.0-dev',
  'pkg-config',
  'cmake',
  'g++',
  'make',
  'python3',
  'fonts-dejavu-core',
  'fonts-noto-color-emoji',
  'fonts-noto-cjk',
];
const APT_TESTS = [
  'chromium',
  'libxtst-dev',
  'nginx',
  'openssh-server',
  'git',
  'openssl',
  'xvfb',
  'xauth',
  'xdotool',
  'x11-utils',
  'imagemagick',
  'dunst',
  'trayer',
  'dbus-x11',
  'libnotify-bin',
  'desktop-file-utils',
  'zbar-tools',
  'vim',
  'less',
  'htop',
];

function log(msg) {
  if (!quiet) process.stderr.write(`[setup] ${msg}\n`);
}

function fail(msg) {
  process.stderr.write(`[setup] error: ${msg}\n`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) fail(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function capture(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function hashFiles(files) {
  const h = createHash('sha256');
  for (const f of files) h.update(existsSync(f) ? readFileSync(f) : `missing:${f}`);
  return h.digest('hex').slice(0, 16);
}

function newestMtime(dir, filter = () => true) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, filter));
    else if (filter(p)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

// ---- 1. System packages (Debian) -------------------------------------------------------

function ensureAptPackages() {
  if (!isLinux || process.env.TERMIO_SKIP_APT === '1') return;
  if (!existsSync('/usr/bin/dpkg-query')) {
    log('not a Debian-like system: install Qt 6 (base + svg) development files, glib, cmake and a C++ compiler yourself');
    return;
  }
  const wanted = mode === 'tests' ? [...APT_RUNTIME, ...APT_TESTS] : APT_RUNTIME;
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...wanted], { encoding: 'utf8' });
  const installed = new Set(
    r.stdout
      .split('\n')
      .filter((l) => /\sii\s*$/.test(l))
      .map((l) => l.split(' ')[0]),
  );
  const missing = wanted.filter((p) => !installed.has(p));
  if (missing.length === 0) return;
  const line = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) fail(`missing Debian packages. Run once:\n  sudo apt-get update && sudo ${line}\nthen run this command again.`);
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env });
}

// ---- 2. npm packages -------------------------------------------------------------------

const stampFile = join(root, 'node_modules', '.termio-setup.json');
function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return {};
  }
}
function writeStamp(stamp) {
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, JSON.stringify(stamp, null, 2));
}

function ensureNpmPackages(stamp) {
  const lockHash = hashFiles([join(root, 'package.json'), join(root, 'package-lock.json')]);
  if (stamp.npm === lockHash && existsSync(join(root, 'node_modules', '.package-lock.json'))) return;
  // .npmrc sets ignore-scripts: NodeGUI's and qode's install scripts download from hosts that
  // a closed machine cannot reach; the native parts are built below instead.
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root });
  for (const k of Object.keys(stamp)) delete stamp[k];
  stamp.npm = lockHash;
  writeStamp(stamp);
}

// ---- 3. Native parts -------------------------------------------------------------------

function nodeDir() {
  // Build against the headers of the running Node (Debian's nodejs ships them in /usr/include/node).
  const prefix = resolve(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : undefined;
}

function nodeGyp(cwd, env = process.env) {
  const args = [join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'), 'rebuild'];
  const nd = nodeDir();
  if (nd) args.push(`--nodedir=${nd}`);
  run(process.execPath, args, { cwd, env });
}

function ensureNodePty() {
  const dir = join(root, 'node_modules', 'node-pty');
  // Every run (two stats when nothing is wrong): npm ci unpacks the helper without its execute bit.
  for (const file of ensureSpawnHelperExecutable(dir)) log(`made node-pty's ${file} executable`);
  if (existsSync(join(dir, 'build', 'Release', 'pty.node'))) return;
  if (isMac && spawnSync(process.execPath, ['scripts/prebuild.js'], { cwd: dir, stdio: 'inherit' }).status === 0) return;
  nodeGyp(dir);
  if (isMac) run(process.execPath, ['scripts/post-install.js'], { cwd: dir });
}

// better-sqlite3 (the conversation index's SQLite, with FTS5): its install script would fetch a
// prebuilt binary from GitHub, which a closed machine cannot reach, so it is compiled here from the
// SQLite source it ships, as node-pty is.
function ensureBetterSqlite() {
  const dir = join(root, 'node_modules', 'better-sqlite3');
  if (existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) return;
  nodeGyp(dir);
}

function nodeguiVersion() {
  return JSON.parse(readFileSync(join(root, 'node_modules', '@nodegui', 'nodegui', 'package.json'), 'utf8')).version;
}

function ensureNodeGui() {
  const pkgDir = join(root, 'node_modules', '@nodegui', 'nodegui');
  const target = join(pkgDir, 'build', 'Release', 'nodegui_core.node');
  if (isMac) {
    // macOS: NodeGUI's normal install (mini Qt + prebuilt addon) and qode, as published.
    if (!existsSync(target)) run('npm', ['rebuild', '@nodegui/nodegui', '@nodegui/qode', '--ignore-scripts=false'], { cwd: root });
    return;
  }
  if (!isLinux) fail(`unsupported platform ${process.platform}`);
  const qtVersion = capture('pkg-config', ['--modversion', 'Qt6Core']);
  if (!qtVersion) fail('Qt 6 development files not found (pkg-config Qt6Core); install qt6-base-dev and qt6-svg-dev');
  const key = `nodegui-${nodeguiVersion()}-qt${qtVersion}-abi${process.versions.modules}-${process.arch}-p${nodeguiPatchesHash()}`;
  const cacheRoot = process.env.TERMIO_BUILD_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'termio');
  const cached = join(cacheRoot, key, 'nodegui_core.node');
  if (!existsSync(cached)) {
    log(`compiling NodeGUI ${nodeguiVersion()} against Qt ${qtVersion} (first time only, about 4 minutes on 2 cores)`);
    try {
      applyNodeguiPatches(pkgDir);
    } catch (err) {
      fail(err.message);
    }
    const out = join(cacheRoot, `${key}.build`);
    const env = { ...process.env, QT_INSTALL_DIR: '/usr', CMAKE_BUILD_PARALLEL_LEVEL: String(availableParallelism()) };
    const nd = nodeDir();
    if (nd) env.npm_config_nodedir = nd;
    run(process.execPath, [join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js'), 'compile', '--out', out], { cwd: pkgDir, env });
    mkdirSync(dirname(cached), { recursive: true });
    copyFileSync(join(out, 'Release', 'nodegui_core.node'), `${cached}.tmp`);
    renameSync(`${cached}.tmp`, cached);
    // The build tree is only useful to resume an interrupted compile; once the addon is cached it is 47 MB of objects.
    rmSync(out, { recursive: true, force: true });
  }
  // Which build the installed addon is (npm ci puts NodeGUI's own back): a size can match by chance.
  const installedKey = `${target}.termio-build`;
  if (!existsSync(target) || !existsSync(installedKey) || readFileSync(installedKey, 'utf8') !== key) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(cached, target);
    writeFileSync(installedKey, key);
  }
}

function ensureQodeShim(stamp) {
  if (!isLinux) return;
  const dir = join(root, 'native', 'qodeshim');
  const built = join(dir, 'build', 'Release', 'qodeshim.node');
  const srcHash = hashFiles([join(dir, 'qodeshim.cc'), join(dir, 'binding.gyp')]) + process.versions.modules;
  if (existsSync(built) && stamp.qodeshim === srcHash) return;
  nodeGyp(dir);
  stamp.qodeshim = srcHash;
  writeStamp(stamp);
}

// The terminal grid painter (native/gridpaint), linked against the Qt the NodeGUI addon uses:
// Debian's Qt 6 on Linux, NodeGUI's downloaded Qt frameworks on macOS.
function ensureGridPainter(stamp) {
  const dir = join(root, 'native', 'gridpaint');
  const built = join(dir, 'build', 'Release', 'gridpaint.node');
  const env = { ...process.env };
  let qt = capture('pkg-config', ['--modversion', 'Qt6Widgets']) ?? '';
  if (isMac) {
    env.TERMIO_QT_DIR = createRequire(import.meta.url)(join(root, 'node_modules', '@nodegui', 'nodegui', 'config', 'qtConfig.js')).qtHome;
    qt = env.TERMIO_QT_DIR;
  }
  const srcHash = hashFiles([join(dir, 'gridpaint.cc'), join(dir, 'glyphBlit.h'), join(dir, 'binding.gyp')]) + process.versions.modules + qt;
  if (existsSync(built) && stamp.gridPainter === srcHash) return;
  nodeGyp(dir, env);
  stamp.gridPainter = srcHash;
  writeStamp(stamp);
}

// The native hook reporter: agents run it on every tool call, and Node's start-up
// alone costs ~90 ms. Without a C compiler the installer keeps using bin/termio-hook.
function ensureHookReporter(stamp) {
  const dir = join(root, 'native', 'termio-hook');
  const built = join(dir, 'build', 'termio-hook');
  const srcHash = hashFiles([join(dir, 'termio-hook.c')]) + process.platform + process.arch;
  if (existsSync(built) && stamp.hookReporter === srcHash) return;
  const cc = process.env.CC || 'cc';
  if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).error) {
    log(`no C compiler (${cc}): skipping the native hook reporter; hooks use bin/termio-hook (Node)`);
    return;
  }
  mkdirSync(dirname(built), { recursive: true });
  // Build beside it and rename: agents may be running the old binary right now.
  const r = spawnSync(cc, ['-O2', '-o', `${built}.tmp`, join(dir, 'termio-hook.c')], { stdio: 'inherit' });
  if (r.status !== 0) {
    log(`the native hook reporter did not compile (${cc} exited with ${r.status ?? r.signal}); hooks use bin/termio-hook (Node)`);
    return;
  }
  renameSync(`${built}.tmp`, built);
  stamp.hookReporter = srcHash;
  writeStamp(stamp);
}

// The session holder (native/termio-holder): one per session, it owns the pty so an agent
// outlives termio-host. Static on Linux: an idle holder then costs well under 1 MiB of RSS,
// however many run. Without a C compiler the host runs sessions on its own ptys, as before.
function ensureHolder(stamp) {
  const dir = join(root, 'native', 'termio-holder');
  const built = join(dir, 'build', 'termio-holder');
  const sources = ['termio-holder.c', 'wire.c', 'holder.h'].map((f) => join(dir, f));
  const srcHash = hashFiles(sources) + process.platform + process.arch;
  if (existsSync(built) && stamp.holder === srcHash) return;
  const cc = process.env.CC || 'cc';
  if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).error) {
    log(`no C compiler (${cc}): skipping the session holder; agents end when termio-host does`);
    return;
  }
  mkdirSync(dirname(built), { recursive: true });
  // Built beside it and renamed: running holders keep the binary they started with.
  const attempts = holderCompileAttempts(process.platform, [join(dir, 'termio-holder.c'), join(dir, 'wire.c')], `${built}.tmp`);
  let r = { status: 1 };
  for (const [i, args] of attempts.entries()) {
    // Only the last attempt's errors are the user's to read.
    r = spawnSync(cc, args, { stdio: i === attempts.length - 1 ? 'inherit' : 'ignore' });
    if (r.status === 0) break;
  }
  if (r.status !== 0) {
    log(`the session holder did not compile (${cc} exited with ${r.status ?? r.signal}); agents end when termio-host does`);
    return;
  }
  renameSync(`${built}.tmp`, built);
  stamp.holder = srcHash;
  writeStamp(stamp);
}

// The global-hotkey helper (native/termio-hotkeys): a passive key grab on X11, Carbon's
// RegisterEventHotKey on macOS. Without it (no compiler, no X11 headers) Settings → Shortcuts says
// global keys are unavailable; nothing else changes.
function ensureHotkeys(stamp) {
  const dir = join(root, 'native', 'termio-hotkeys');
  const built = join(dir, 'build', 'termio-hotkeys');
  const source = join(dir, isMac ? 'termio-hotkeys-mac.c' : 'termio-hotkeys-x11.c');
  const srcHash = hashFiles([source]) + process.platform + process.arch;
  if (existsSync(built) && stamp.hotkeys === srcHash) return;
  const cc = process.env.CC || 'cc';
  if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).error) {
    log(`no C compiler (${cc}): skipping the global-hotkey helper; global shortcuts are unavailable`);
    return;
  }
  mkdirSync(dirname(built), { recursive: true });
  const link = isMac ? ['-framework', 'Carbon'] : ['-lX11'];
  const r = spawnSync(cc, ['-O2', '-o', `${built}.tmp`, source, ...link], { stdio: 'inherit' });
  if (r.status !== 0) {
    log(`the global-hotkey helper did not compile (${cc} exited with ${r.status ?? r.signal}); global shortcuts are unavailable`);
    return;
  }
  renameSync(`${built}.tmp`, built);
  stamp.hotkeys = srcHash;
  writeStamp(stamp);
}

// ---- 4. TypeScript ---------------------------------------------------------------------

function ensureBuild(stamp) {
  const newest = Math.max(
    newestMtime(join(root, 'src'), (p) => p.endsWith('.ts') || p.endsWith('tsconfig.json')),
    ...['tsconfig.base.json', 'tsconfig.layer.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/bundle.mjs'].map(
      (f) => statSync(join(root, f)).mtimeMs,
    ),
  );
  if (existsSync(join(root, 'dist')) && stamp.build === newest) return;
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.build.json'], { cwd: root });
  // The app and the host run as one file each, bundled over tsc's entries (scripts/bundle.mjs).
  run(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { cwd: root });
  stamp.build = newest;
  writeStamp(stamp);
}

// The web companion's page (dist/web), bundled by esbuild: rebuilt when its sources change.
function ensureWebBundle(stamp) {
  const newest = Math.max(newestMtime(join(root, 'src', 'app', 'web')), statSync(join(root, 'package-lock.json')).mtimeMs);
  if (existsSync(join(root, 'dist', 'web', 'index.html')) && stamp.web === newest) return;
  run(process.execPath, [join(root, 'scripts', 'build-web.mjs')], { cwd: root });
  stamp.web = newest;
  writeStamp(stamp);
}

// ---- run -------------------------------------------------------------------------------

function setup() {
  ensureAptPackages();
  const stamp = readStamp();
  ensureNpmPackages(stamp);
  ensureNodePty();
  ensureBetterSqlite();
  ensureNodeGui();
  ensureQodeShim(stamp);
  ensureGridPainter(stamp);
  ensureHookReporter(stamp);
  ensureHolder(stamp);
  ensureHotkeys(stamp);
  ensureBuild(stamp);
  ensureWebBundle(stamp);
}

function forward(child) {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

setup();
if (mode === 'app') {
  // The platform layer knows how this OS runs the app (plain Node + qodeshim on Linux, qode on macOS).
  const { appLaunchCommand } = createRequire(import.meta.url)(join(root, 'dist', 'app', 'platform', 'launch.js'));
  const { command, args } = appLaunchCommand(process.argv.slice(3));
  forward(spawn(command, args, { stdio: 'inherit', cwd: root }));
} else if (mode === 'tests') {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  run('npm', ['run', '--silent', 'lint'], { cwd: root });
  run('npm', ['run', '--silent', 'typecheck'], { cwd: root });
  const jsonReport = join(root, 'test-output', 'vitest.json');
  const r = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonReport}`, ...process.argv.slice(3)], {
    stdio: 'inherit',
    cwd: root,
  });
  // The release matrix wrote its record: docs/agents.md and agents/verified.json follow it.
  if (existsSync(join(root, 'test-output', 'agent-matrix'))) run(process.execPath, [join(root, 'scripts', 'agent-matrix-doc.mjs')], { cwd: root });
  process.exit(closingLine(jsonReport, r.status ?? 1));
}

/**
 * One plain closing line that any CI log reader understands, and the run's exit status: where CI
 * is set every test must have run (a skip there is a failure, named), and processes the suite
 * left behind (test/suiteTeardown.ts lists them) fail it wherever it runs.
 */
function closingLine(jsonReport, status) {
  let j;
  try {
    j = JSON.parse(readFileSync(jsonReport, 'utf8'));
  } catch {
    process.stdout.write('\ntests: no report was written (the test runner did not finish)\n');
    return status || 1;
  }
  const skippedTests = (j.testResults ?? []).flatMap((f) =>
    (f.assertionResults ?? []).filter((t) => ['pending', 'skipped', 'todo'].includes(t.status)).map((t) => `${f.name.replace(`${root}/`, '')}: ${t.fullName}`),
  );
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  process.stdout.write(`\ntests: ${j.numPassedTests} passed, ${j.numFailedTests} failed, ${skipped} skipped\n`);
  if (everyTestMustRun() && skipped > 0) {
    process.stderr.write(`[setup] error: CI is set, so every test must run, but ${skipped} skipped:\n  ${skippedTests.join('\n  ')}\n`);
    status ||= 1;
  }
  const leftovers = join(root, 'test-output', 'leftover-processes.txt');
  if (existsSync(leftovers)) {
    process.stderr.write(`[setup] error: the suite left processes running (ended at its close):\n${readFileSync(leftovers, 'utf8')}`);
    status ||= 1;
  }
  return status;
}
