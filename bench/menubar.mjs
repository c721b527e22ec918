#!/usr/bin/env node
// Menu-bar benchmarks. Run `npm run build` first, then `node bench/menubar.mjs`.
// Runs the real session host (termio-host, a child process, as in the product) and the real app
// (window, tray, a client of the host over its socket) in this process, under a private Xvfb with a
// real system tray (trayer, XEmbed), a private D-Bus session bus and a real notification daemon
// (dunst). Sessions run a stand-in `claude` (cat: no CPU); their states come from hook reports
// sent to the host's hook socket exactly as bin/termio-hook sends them. What happens in the host
// is read from its log (its state changes carry a wall-clock stamp). Prints, each next to a
// reference measured in the same run:
//  1. status change (hook report written) → tray icon (and tooltip) updated, and painted (target p99 ≤ 50 ms;
//     the menu is rebuilt as it opens, measured in 3),
//     with 1 and with 50 sessions (and with the window hidden, which tells the window's repaint from
//     the tray's); reference: report → registry state (host only), the tray alone, an empty Qt pass;
//  2. attention → notification shown (target ≤ 200 ms): accepted by the daemon (the host's log line), shown
//     (dunst ran its rule script); reference: notify-send run directly;
//  3. with 50 sessions, the tray menu opening (popup + paint, unchanged or rebuilt after a state
//     change) and the picker filtering one keystroke
//     (keys typed through X with xdotool, beside setQuery in-process and xdotool alone) (target ≤ 50 ms each);
//     reference: the same with 1 session.
// "Painted" is a forced qApp.processEvents() right after the update, not a frame seen on screen.
// Each target is checked on the figure bench/README.md reports; the exit status is non-zero on a miss.
import { exec, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnd, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const STATUS_SAMPLES = 200; // per configuration: enough for a stable p99
const NOTIFY_SAMPLES = 30; // one per session, so per-session coalescing never drops one
/** The policy folds more than 3 notifications in 2 s into a summary: space samples just past that. */
const NOTIFY_SPACING_MS = 750;
const MENU_SAMPLES = 40;
const PICKER_ROUNDS = 15;
const PICKER_QUERIES = ['c', 'cl', 'cla', 'clau', 'claude', 'co', 'cod', 'g', ''];
const MANY = 50;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;
const row = (name, xs, note = '') =>
  console.log(`  ${name.padEnd(58)} p50 ${ms(pct(xs, 50)).padStart(10)}  p99 ${ms(pct(xs, 99)).padStart(10)}  max ${ms(Math.max(...xs)).padStart(10)}${note}`);
const sleep = (t) => new Promise((r) => setTimeout(r, t));
async function until(check, what, timeout = 10_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

// ---- a private desktop: Xvfb, D-Bus session bus (no auto-start), trayer, dunst ----
const dir = mkdtempSync(join(tmpdir(), 'termio-bench-menubar-'));
const children = [];
function child(cmd, args, opts = {}) {
  const c = spawn(cmd, args, { stdio: 'ignore', ...opts });
  children.push(c);
  return c;
}
const xvfb = child('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp', '-noreset'], {
  stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
});
let xout = '';
xvfb.stdio[3].on('data', (d) => (xout += d));
const display = `:${await until(() => (xout.includes('\n') ? xout.trim() : null), 'Xvfb')}`;
writeFileSync(
  join(dir, 'bus.conf'),
  `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${dir}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
);
const bus = child('dbus-daemon', [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--nopidfile', '--print-address=1'], {
  stdio: ['ignore', 'pipe', 'ignore'],
});
let busOut = '';
bus.stdout.on('data', (d) => (busOut += d));
const busAddress = await until(() => (busOut.includes('\n') ? busOut.trim() : null), 'the D-Bus address');
const home = join(dir, 'home');
const bin = join(dir, 'bin');
mkdirSync(join(home, '.termio', 'config'), { recursive: true });
mkdirSync(bin);
chmodSync(home, 0o700);
Object.assign(process.env, {
  HOME: home,
  TERMIO_HOME: join(home, '.termio'),
  XDG_RUNTIME_DIR: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  SHELL: '/bin/sh',
  LANG: 'C.UTF-8',
  DISPLAY: display,
  DBUS_SESSION_BUS_ADDRESS: busAddress,
});
writeFileSync(join(home, '.termio', 'config', 'settings.json'), '{ "welcomeShown": true }\n');
// The stand-in agent: a pty that reads and does nothing (its hooks are sent by this script).
writeFileSync(join(bin, 'claude'), '#!/bin/sh\nexec cat >/dev/null\n', { mode: 0o755 });

child('trayer', [
  '--edge',
  'top',
  '--align',
  'right',
  '--widthtype',
  'request',
  '--height',
  '32',
  '--transparent',
  'true',
  '--alpha',
  '0',
  '--tint',
  '0x202020',
]);
const shownFile = join(dir, 'shown.tsv');
writeFileSync(join(dir, 'shown.sh'), `#!/bin/sh\nprintf '%s\\t%s\\n' "$(date +%s%N)" "$3" >> "${shownFile}"\n`, { mode: 0o755 });
// Notifications leave after 2 s, as a user's would be dismissed: the daemon never redraws a tall stack.
writeFileSync(
  join(dir, 'dunstrc'),
  `[global]\n    monitor = 0\n    follow = none\n\n[urgency_normal]\n    timeout = 2\n\n[capture]\n    summary = "*"\n    script = ${join(dir, 'shown.sh')}\n`,
);
child('dunst', ['-config', join(dir, 'dunstrc')]);
const hasOwner = () =>
  spawnSync(
    'dbus-send',
    [
      '--session',
      '--print-reply=literal',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.freedesktop.Notifications',
    ],
    { encoding: 'utf8' },
  ).stdout.includes('true');
await until(hasOwner, 'dunst on the bus');

function trayClient() {
  const tree = spawnSync('xwininfo', ['-root', '-tree'], { encoding: 'utf8' }).stdout;
  const panel = tree.indexOf('("panel" "trayer")');
  return panel >= 0 && /\("termio" "termio"\)/.test(tree.slice(panel, panel + 600));
}

// ---- the app, in this process ----
const { startQtRuntime } = require(join(root, 'dist/app/platform'));
const runtime = startQtRuntime('termio');
const { TermioApp } = require(join(root, 'dist/app/ui/app.js'));
const { ControlClient } = require(join(root, 'dist/app/client/controlClient.js'));
const { defaultNotificationIcon } = require(join(root, 'dist/app/services/notifier.js'));
const { RemoteHost } = require(join(root, 'dist/app/client/remoteHost.js'));
const { createLogger } = require(join(root, 'dist/app/services/log.js'));
const { HOOK_REPORT_VERSION } = require(join(root, 'dist/protocol/hookReport.js'));

const log = createLogger(join(home, '.termio', 'logs', 'termio.log'));
// The session host in its own process; the stand-in agent on its login shell's PATH.
writeFileSync(join(home, '.profile'), `export PATH="${bin}:$PATH"\n`);
const hostEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, TERMIO_HOST_IDLE_MS: '0', TERMIO_LOG_LEVEL: 'debug' };
const hostChild = spawn(process.execPath, [join(root, 'dist/app/host/hostMain.js')], { env: hostEnv, stdio: 'ignore' });
const hostExited = new Promise((r) => hostChild.once('exit', r));
const hostLog = join(home, '.termio', 'logs', 'host.log');
/** The host's log lines with this message: their data, and when each was written (wall clock, ms). */
function hostEntries(msg) {
  let text = '';
  try {
    text = readFileSync(hostLog, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.includes(` ${msg} {`))
    .map((l) => ({ ...JSON.parse(l.slice(l.indexOf('{'))), loggedAt: Date.parse(l.slice(0, l.indexOf(' '))) }));
}
const wall = (t) => performance.timeOrigin + t;
/** One control request on its own connection, as the termio CLI makes it. */
async function control(verb, args) {
  const c = await ControlClient.connect(hostEnv);
  if (!(c instanceof ControlClient)) throw new Error(`the host did not answer: ${c.message}`);
  try {
    return await c.request(verb, args);
  } finally {
    c.close();
  }
}
for (const end = Date.now() + 20_000; ; await sleep(50)) {
  const c = await ControlClient.connect(hostEnv);
  if (c instanceof ControlClient) {
    c.close();
    break;
  }
  if (Date.now() > end) throw new Error(`the host did not answer: ${c.message}`);
}
const remote = await RemoteHost.start({ logger: log });
if (!remote.ok) throw new Error(remote.message);
const app = new TermioApp(runtime, remote.host, log);
globalThis.benchApp = app; // NodeGUI objects live as long as their JS wrappers
const first = await remote.host.subscribe(false, 'host');
if ('error' in first) throw new Error(first.error);
await app.restore(first);
const qApp = app.qApp;
const tray = app.tray;
await until(trayClient, 'the tray icon docked in trayer');

// Where the time of one refresh goes: the window's sidebar, the tray, then Qt's paint pass.
const cost = { sidebar: [], tray: [], paint: [] };
for (const win of app.windows) {
  const setSessions = win.setSessions.bind(win);
  win.setSessions = (groups) => {
    const t0 = performance.now();
    setSessions(groups);
    if (waiter) cost.sidebar.push(performance.now() - t0);
  };
}
let waiter = null;
const update = tray.update.bind(tray);
tray.update = (items, agents) => {
  const t0 = performance.now();
  update(items, agents);
  if (waiter) cost.tray.push(performance.now() - t0);
  if (waiter?.check()) {
    const w = waiter;
    waiter = null;
    const updated = performance.now();
    qApp.processEvents(); // delivers the paint of the tray icon and of anything else that changed
    const painted = performance.now();
    cost.paint.push(painted - updated);
    w.resolve({ updated, painted });
  }
};

const hookSocket = join(home, '.termio', 'run', 'hooks.sock');
/** What a reporter run by the session's agent sends to prove it: the secret in the agent's
 *  environment, and the agent as its parent process. */
const origins = new Map();
function origin(session) {
  let o = origins.get(session);
  if (!o) {
    const pid = pidOf.get(session);
    const secret =
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((v) => v.startsWith('TERMIO_SESSION_SECRET='))
        ?.slice(22) ?? '';
    o = { secret, parents: [[pid, 'cat']] };
    origins.set(session, o);
  }
  return o;
}

/** One hook report, framed as bin/termio-hook frames it; resolves with the time it was written. */
function report(session, state, event, payload = {}) {
  return new Promise((resolve, reject) => {
    const s = createConnection(hookSocket);
    s.resume(); // Termio's answer once the report is applied
    s.on('error', reject);
    s.on('connect', () => {
      const t0 = performance.now();
      s.end(
        `${JSON.stringify({ v: HOOK_REPORT_VERSION, session, ...origin(session), agent: 'claude', state, event, payload: JSON.stringify({ hook_event_name: event, ...payload }), truncated: false })}\n`,
      );
      resolve(t0);
    });
  });
}

const sessions = [];
const pidOf = new Map();
async function addSessions(n) {
  for (let i = 0; i < n; i++) {
    const cwd = join(home, `s${String(sessions.length + 1).padStart(2, '0')}`);
    mkdirSync(cwd);
    const r = await control('sessions.spawn', { agent: 'claude', cwd });
    if (!r.ok) throw new Error(r.error.message);
    sessions.push(r.result.id);
    pidOf.set(r.result.id, r.result.session.pid);
  }
  await until(() => tray.items.length >= sessions.length, 'the tray to count every session');
}
const itemState = (id) => tray.items.find((i) => i.id === id)?.state;

async function statusToTray() {
  for (const k of Object.keys(cost)) cost[k] = [];
  const total = [];
  const painted = [];
  const sent = [];
  for (let k = 0; k < STATUS_SAMPLES; k++) {
    const id = sessions[k % sessions.length];
    const toWorking = itemState(id) !== 'working';
    const done = new Promise((resolve) => {
      waiter = { check: () => (toWorking ? itemState(id) === 'working' : itemState(id) !== 'working' && itemState(id) !== undefined), resolve };
    });
    const t0 = await report(id, toWorking ? 'working' : 'done', toWorking ? 'UserPromptSubmit' : 'Stop');
    const t = await done;
    total.push(t.updated - t0);
    painted.push(t.painted - t0);
    sent.push({ id, at: wall(t0) });
  }
  // The host's side, from its log: each report → its state change there (wall clock, both ends).
  const changes = hostEntries('state');
  const hostOnly = sent.map((r) => changes.find((c) => c.id === r.id && c.at >= r.at)?.at - r.at).filter((x) => Number.isFinite(x));
  return { total, painted, hostOnly, cost: { sidebar: cost.sidebar, tray: cost.tray, paint: cost.paint } };
}

/** The tray alone: synthetic items, one changing state, straight into Tray.update, then a Qt pass. */
function trayAlone(n) {
  const now = Date.now();
  const items = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    label: `Session ${i}`,
    folderLabel: `project-${i}`,
    agentName: 'Claude Code',
    state: 'idle',
    stateSince: now,
  }));
  const xs = [];
  for (let k = 0; k < STATUS_SAMPLES; k++) {
    const item = items[k % n];
    item.state = item.state === 'working' ? 'done' : 'working';
    const t0 = performance.now();
    update(items.map((i) => ({ ...i })));
    qApp.processEvents();
    xs.push(performance.now() - t0);
  }
  app.refresh(); // back to the real sessions
  return xs;
}

function emptyQtPass() {
  const xs = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    qApp.processEvents();
    xs.push(performance.now() - t0);
  }
  return xs;
}

/** The tray icon's centre on screen (the client window trayer embedded for us). */
function trayIconCentre() {
  const tree = spawnSync('xwininfo', ['-root', '-tree'], { encoding: 'utf8' }).stdout;
  const m = tree.slice(tree.indexOf('("panel" "trayer")')).match(/\("termio" "termio"\)\s+(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+(-?\d+)\+(-?\d+)/);
  if (!m) throw new Error('no tray icon in the panel');
  return [Number(m[3]) + Math.floor(Number(m[1]) / 2), Number(m[4]) + Math.floor(Number(m[2]) / 2)];
}

/** Runs Qt's events until a condition holds (the loop stays ours: no timer granularity in the figure). */
function spinUntil(check, what) {
  const end = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    qApp.processEvents();
  }
}

/** Opens the tray menu as a user does, a right press on the icon (xdotool), MENU_SAMPLES times, once
 *  as it is and once after a session changed state (it is rebuilt as it opens); closes it with a
 *  click elsewhere. The figure runs from the press command to the menu mapped and painted. */
async function menuOpen() {
  const [x, y] = trayIconCentre();
  const unchanged = [];
  const changed = [];
  const builds = [];
  const xdotool = [];
  // Qt opens the menu on the press; `xdotool click` would hold the button ~100 ms first.
  const open = () => {
    const t0 = performance.now();
    spawnSync('xdotool', ['mousemove', String(x), String(y), 'mousedown', '3']);
    spinUntil(() => tray.menu.isVisible(), 'the tray menu to open');
    qApp.processEvents();
    const t = performance.now() - t0;
    spawnSync('xdotool', ['mouseup', '3', 'mousemove', '1200', '600', 'mousedown', '1', 'mouseup', '1']);
    spinUntil(() => !tray.menu.isVisible(), 'the tray menu to close');
    return t;
  };
  for (let i = 0; i < MENU_SAMPLES; i++) {
    // The same command where nothing answers it (the middle button on the bare desktop).
    const t0 = performance.now();
    spawnSync('xdotool', ['mousemove', '1200', '600', 'mousedown', '2']);
    xdotool.push(performance.now() - t0);
    spawnSync('xdotool', ['mouseup', '2']);
    unchanged.push(open());
    // A session changes state while the menu is closed: the next open rebuilds it.
    const id = sessions[i % sessions.length];
    const toWorking = itemState(id) !== 'working';
    await report(id, toWorking ? 'working' : 'done', toWorking ? 'UserPromptSubmit' : 'Stop');
    await until(() => (itemState(id) === 'working') === toWorking, 'the state change');
    changed.push(open());
    builds.push(tray.lastMenuBuildMs);
  }
  return { unchanged, changed, builds, xdotool };
}

function pickerFilter() {
  const win = [...app.windows][0];
  win.openPicker();
  const xs = [];
  const filterOnly = [];
  for (let r = 0; r < PICKER_ROUNDS; r++) {
    for (const q of PICKER_QUERIES) {
      const t0 = performance.now();
      win.picker.setQuery(q);
      qApp.processEvents();
      xs.push(performance.now() - t0);
      filterOnly.push(win.picker.lastFilterMs);
    }
  }
  win.picker.close();
  qApp.processEvents();
  return { xs, filterOnly };
}

/** The picker typed into through X, as a user types: each key (xdotool) → the filter field holds
 *  it → filtered and painted (a Qt pass); three letters, then three backspaces, per round. */
function pickerTyped() {
  const win = [...app.windows][0];
  const id = spawnSync('xdotool', ['search', '--onlyvisible', '--name', '^Termio$'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  spawnSync('xdotool', ['windowactivate', '--sync', id]);
  spawnSync('xdotool', ['windowfocus', '--sync', id]);
  win.openPicker();
  spinUntil(() => win.picker.panel.input.hasFocus(), 'the picker field to take the keys');
  const xs = [];
  const sending = [];
  const press = (key, want) => {
    const t0 = performance.now();
    spawnSync('xdotool', ['key', key]);
    sending.push(performance.now() - t0);
    spinUntil(() => win.picker.panel.input.text() === want, `the picker field to read "${want}"`);
    qApp.processEvents();
    xs.push(performance.now() - t0);
  };
  for (let r = 0; r < PICKER_ROUNDS; r++) {
    press('c', 'c');
    press('l', 'cl');
    press('a', 'cla');
    press('BackSpace', 'cl');
    press('BackSpace', 'c');
    press('BackSpace', '');
  }
  win.picker.close();
  qApp.processEvents();
  return { xs, sending };
}

/** notify-send run directly, as node-notifier runs it (through a shell, same options): spawn → exit. */
function notifySendDirect(i) {
  const t0 = performance.now();
  return new Promise((resolve) =>
    exec(`notify-send "Reference" "direct ${i}" --icon "${defaultNotificationIcon(root)}" --expire-time "10000"`, () => resolve(performance.now() - t0)),
  );
}

/** Waits until the app is quiet: Qt has nothing pending and a 20 ms timer fires on time 10 times in a row. */
async function settle() {
  let onTime = 0;
  const end = Date.now() + 20_000;
  while (onTime < 10 && Date.now() < end) {
    qApp.processEvents();
    const t0 = performance.now();
    await sleep(20);
    onTime = performance.now() - t0 < 23 ? onTime + 1 : 0;
  }
}

try {
  console.log(
    `Menu bar: the app in this process and termio-host in its own, under Xvfb ${display}, tray icon docked in trayer (XEmbed), notifications to dunst on a private bus`,
  );
  console.log(
    `  load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} on ${cpus().length} cores (X round trips share the CPU with Xvfb: tails grow with load)`,
  );
  await addSessions(1);
  await settle();
  const one = await statusToTray();
  const menuOne = await menuOpen();
  const pickerOne = pickerFilter();
  const aloneOne = trayAlone(1);
  const aloneMany = trayAlone(MANY);
  await addSessions(MANY - 1);
  await settle();
  const many = await statusToTray();
  for (const w of app.windows) w.window.hide();
  await settle();
  const manyHidden = await statusToTray();
  for (const w of app.windows) w.window.show();
  await settle();
  const menuMany = await menuOpen();
  const pickerMany = pickerFilter();
  const typedMany = pickerTyped();
  const empty = emptyQtPass();

  console.log(
    `\n1. status change (hook report written) → tray icon updated (target p99 ≤ 50 ms; the menu is rebuilt as it opens: see 3), ${STATUS_SAMPLES} changes each`,
  );
  row('reference: an empty Qt event pass (processEvents)', empty);
  row('reference: tray alone, update + Qt pass, 1 item (no window)', aloneOne);
  row(`reference: tray alone, update + Qt pass, ${MANY} items`, aloneMany);
  row('reference: report → registry state, 1 session (host only)', one.hostOnly);
  row('1 session: → tray updated', one.total);
  row('1 session: → tray updated and painted', one.painted);
  row(`reference: report → registry state, ${MANY} sessions`, many.hostOnly);
  row(`${MANY} sessions: → tray updated`, many.total);
  row(`${MANY} sessions: → tray updated and painted`, many.painted);
  console.log(`  target p99 ≤ 50 ms (${MANY} sessions, updated and painted) ${target('status change → tray p99 ≤ 50 ms', pct(many.painted, 99) <= 50)}`);
  row(`${MANY} sessions, window hidden: → tray updated and painted`, manyHidden.painted);
  for (const [name, r] of [
    ['1 session', one],
    [`${MANY} sessions`, many],
  ]) {
    row(`  ${name}, of which: window sidebar update`, r.cost.sidebar);
    row(`  ${name}, of which: tray update (icon, tooltip)`, r.cost.tray);
    row(`  ${name}, of which: Qt paint pass after it`, r.cost.paint);
  }

  console.log(`\n2. attention → notification shown (target ≤ 200 ms), ${NOTIFY_SAMPLES} sessions asking one by one, ${MANY} running`);
  writeFileSync(shownFile, '');
  await settle();
  const direct = [];
  const decided = [];
  const shown = [];
  // Wall-clock of each attention report, to match against dunst's `date +%s%N` stamps.
  const wallAt = new Map();
  // The session the user looks at, as the host last logged it: it is rightly not notified.
  const looking = () => hostEntries('looking at').at(-1)?.id ?? null;
  let asked = 0;
  for (const id of sessions) {
    if (asked >= NOTIFY_SAMPLES) break;
    if (id === looking()) continue; // the user looks at it: rightly no notification
    await report(id, 'working', 'PreToolUse', { tool_name: 'Bash' });
    await until(() => itemState(id) === 'working', 'working');
    const t0 = await report(id, 'attention', 'PermissionRequest', { tool_name: 'Bash' });
    wallAt.set(id, performance.timeOrigin + t0);
    // The host logs the notification once notify-send returned (the daemon has it), at ms resolution.
    const note = await until(
      () => hostEntries('notification').find((e) => e.session === id),
      `the notification of ${id} (the host looks at ${looking()}; ${hostEntries('notification').length} notified so far)`,
    );
    decided.push(note.loggedAt - wall(t0));
    asked++;
    // The reference under the same conditions, between two of the app's notifications.
    await sleep(NOTIFY_SPACING_MS / 2);
    direct.push(await notifySendDirect(asked));
    await sleep(NOTIFY_SPACING_MS / 2);
  }
  const folderOf = new Map(sessions.map((id, i) => [`s${String(i + 1).padStart(2, '0')}`, id]));
  await until(
    () =>
      readFileSync(shownFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes(' · ')).length >= asked,
    'dunst to show every notification',
  );
  for (const line of readFileSync(shownFile, 'utf8').split('\n')) {
    const [ns, body] = line.split('\t');
    const id = folderOf.get((body ?? '').split(' · ')[0]);
    if (id && wallAt.has(id)) shown.push(Number(BigInt(ns) / 1000n) / 1000 - wallAt.get(id));
  }
  row('reference: notify-send run directly, same options (spawn → exit)', direct);
  row('report → notify-send returned, in the host (its log line, ms)', decided);
  row('report → dunst showed it (its rule script ran)', shown, shown.length < asked ? `  (${shown.length}/${asked} matched)` : '');
  console.log(
    `  n=${asked}: the p99 is the maximum. target ≤ 200 ms to shown, every one (max) ${target('attention → notification shown ≤ 200 ms', shown.length === asked && Math.max(...shown) <= 200)}`,
  );

  console.log('\n3. tray menu open and picker filter (target ≤ 50 ms each)');
  row('reference: the xdotool press alone, on the bare desktop', [...menuOne.xdotool, ...menuMany.xdotool]);
  row('reference, 1 session: right press → menu open + painted', menuOne.unchanged);
  row('reference, 1 session: after a state change (rebuild too)', menuOne.changed);
  row(`${MANY} sessions: right press → menu open + painted`, menuMany.unchanged);
  row(`${MANY} sessions: after a state change (rebuild too)`, menuMany.changed);
  row(`${MANY} sessions: of which the rebuild`, menuMany.builds);
  row('reference, 1 session: picker query set → filtered + painted', pickerOne.xs);
  row(`${MANY} sessions: picker query set → filtered + painted`, pickerMany.xs);
  row(`${MANY} sessions: picker filter pass alone`, pickerMany.filterOnly);
  row(`${MANY} sessions: picker key typed through X → filtered + painted`, typedMany.xs);
  row('reference: xdotool sending those keys alone', typedMany.sending);
  console.log(
    `  targets p99 ≤ 50 ms: menu ${target('50-session tray menu open p99 ≤ 50 ms', pct(menuMany.changed, 99) <= 50)}, picker typed through X ${target('50-session picker key → filtered p99 ≤ 50 ms', pct(typedMany.xs, 99) <= 50)}`,
  );
  console.log(`\n  tray animation: ${tray.framesDrawn} frames drawn while agents worked`);
  process.exitCode = benchEnd();
} catch (err) {
  console.error(`bench failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  app.host.dispose();
  hostChild.kill('SIGTERM');
  await hostExited;
  tray.dispose();
  for (const c of children.reverse()) c.kill('SIGTERM');
  runtime.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit();
}
