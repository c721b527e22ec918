// Drives the real Termio app in tests: a private Xvfb display, a temporary HOME and TERMIO_HOME,
// the app process, the termio CLI against it, screenshots, and a clean-exit check.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest';
import { shellQuote } from '../../src/app/services/shellQuote';
import { endProcessesWithHome, processesWithHome } from '../helpers/processes';
import { CLAUDE_ENV, ensureNewestClaude, writeClaudeUser } from '../integration/agents/recipes/claude';
import { skipUnlessRequired } from '../helpers/required';
import { waitFor } from '../helpers/waitFor';
import { writeFake } from '../helpers/fakeOnPath';

export const repoRoot = resolve(__dirname, '..', '..');
export const screenshotDir = join(repoRoot, 'test-output', 'screenshots');

export const hasXvfb = spawnSync('which', ['Xvfb']).status === 0;
/** Why e2e tests are skipped where they cannot run (macOS, or Xvfb not installed); under CI they fail instead. */
export const e2eSkipReason = skipUnlessRequired(hasXvfb ? null : 'Xvfb is not installed: npm test installs it on Debian; e2e tests need an X server');

/**
 * A private X server, found through -displayfd so parallel runs never collide. -noreset: by
 * default an X server resets when its last client disconnects, and a client that connects
 * during that reset is refused ("could not connect to display"), which is exactly what a test
 * does when it stops one app and starts the next.
 */
export class Display {
  private constructor(
    readonly proc: ChildProcess,
    readonly name: string,
    private readonly stderr: { tail: string },
  ) {}

  static async start(size = '1280x800x24'): Promise<Display> {
    const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp', '-ac', '-noreset'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const stderr = { tail: '' };
    // Always drain stderr: an undrained pipe fills up and blocks the server mid-write.
    proc.stderr?.on('data', (d: Buffer) => (stderr.tail = (stderr.tail + d.toString()).slice(-4000)));
    const fd3 = proc.stdio[3] as NodeJS.ReadableStream;
    fd3.on('data', (d: Buffer) => (out += d.toString()));
    const num = await waitFor(
      () => {
        if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`Xvfb exited (${proc.exitCode ?? proc.signalCode}): ${stderr.tail.trim()}`);
        return /\d+\n/.test(out) ? out.trim() : null;
      },
      { timeout: 10_000, what: 'Xvfb to report its display' },
    );
    return new Display(proc, `:${num}`, stderr);
  }

  /** Whether the X server is still running, and if not, what it last said: for failure messages. */
  health(): string {
    const gone = this.proc.exitCode !== null || this.proc.signalCode !== null;
    return gone
      ? `Xvfb ${this.name} has exited (${this.proc.exitCode ?? this.proc.signalCode}): ${this.stderr.tail.trim().split('\n').slice(-5).join(' | ')}`
      : `Xvfb ${this.name} is running`;
  }

  screenshot(file: string): string {
    mkdirSync(resolve(file, '..'), { recursive: true });
    const r = spawnSync('import', ['-display', this.name, '-window', 'root', file]);
    if (r.status !== 0) throw new Error(`screenshot failed: ${r.stderr.toString()}`);
    return file;
  }

  xdotool(...args: string[]): string {
    const r = spawnSync('xdotool', args, { env: { ...process.env, DISPLAY: this.name }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`xdotool ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    await exited;
  }
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Raw pixels of a region of a PNG (ImageMagick does the decoding). */
export function readPixels(png: string, x: number, y: number, w: number, h: number): Rgb[] {
  const r = spawnSync('convert', [png, '-crop', `${w}x${h}+${x}+${y}`, '+repage', '-depth', '8', 'rgb:-'], { maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`convert failed: ${r.stderr.toString()}`);
  const px: Rgb[] = [];
  for (let i = 0; i + 2 < r.stdout.length; i += 3) px.push({ r: r.stdout[i]!, g: r.stdout[i + 1]!, b: r.stdout[i + 2]! });
  return px;
}

export function hexToRgb(hex: string): Rgb {
  const n = parseInt(hex.replace('#', ''), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function fractionNear(pixels: Rgb[], color: Rgb, tolerance = 6): number {
  const near = pixels.filter((p) => Math.abs(p.r - color.r) <= tolerance && Math.abs(p.g - color.g) <= tolerance && Math.abs(p.b - color.b) <= tolerance);
  return near.length / Math.max(1, pixels.length);
}

/** Every descendant pid of a process (via /proc), to prove a quit leaves no children behind. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process went away while we looked
    }
  }
  const out: number[] = [];
  const visit = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      visit(c);
    }
  };
  visit(pid);
  return out;
}

export { isAlive } from '../helpers/processes';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a termio CLI (`bin`: this checkout's bin/termio, or another install's) in `env`'s HOME. */
export function runCli(bin: string, env: NodeJS.ProcessEnv, args: string[], opts: { timeout?: number; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(bin, args, { env, cwd: env.HOME });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout ?? 10_000);
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** How long the app may take to show a window or write an awaited log line: a second or two
 *  alone, several times that with the rest of the machine busy. Only a hung app reaches it. */
const APP_START_TIMEOUT_MS = 30_000;

export class AppUnderTest {
  readonly logFile: string;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exited: Promise<void>;
  output = '';

  private constructor(
    readonly display: Display,
    readonly home: string,
    readonly termioHome: string,
    readonly proc: ChildProcess,
  ) {
    this.logFile = join(termioHome, 'logs', 'termio.log');
    this.exited = new Promise((r) =>
      proc.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        r();
      }),
    );
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  /** Starts the app from dist/ (npm test builds it first) with a fresh temporary HOME. */
  static async launch(
    display: Display,
    opts: { env?: Record<string, string>; home?: string; command?: string[]; welcome?: boolean; settings?: Record<string, unknown> } = {},
  ): Promise<AppUnderTest> {
    const home = opts.home ?? mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    const termioHome = join(home, '.termio');
    // The first-launch welcome is its own test; elsewhere it would only steal focus.
    const settings = join(termioHome, 'config', 'settings.json');
    if (!opts.welcome && !existsSync(settings)) {
      mkdirSync(join(termioHome, 'config'), { recursive: true });
      writeFileSync(settings, `${JSON.stringify({ welcomeShown: true, ...opts.settings })}\n`);
    }
    const env = AppUnderTest.envFor(display, home, termioHome, opts.env);
    const [cmd, ...args] = opts.command ?? [process.execPath, join(repoRoot, 'dist', 'app', 'main.js')];
    const proc = spawn(cmd!, args, { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
    return new AppUnderTest(display, home, termioHome, proc);
  }

  static envFor(display: Display, home: string, termioHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      HOME: home,
      TERMIO_HOME: termioHome,
      XDG_RUNTIME_DIR: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      SHELL: '/bin/bash',
      DISPLAY: display.name,
      TERMIO_LOG_LEVEL: 'debug',
      // No session bus unless a test brings its own (the menu-bar test runs dbus + dunst): without
      // this, notify-send would autolaunch a bus and a notification daemon that outlive the test.
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
      ...extra,
    };
  }

  get pid(): number {
    return this.proc.pid!;
  }

  get exit() {
    return this.exitInfo;
  }

  /** The app's log, then the session host's (sessions, status and the control socket live there). */
  log(): string {
    const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    return read(this.logFile) + read(this.hostLogFile);
  }

  get hostLogFile(): string {
    return join(this.termioHome, 'logs', 'host.log');
  }

  async waitForLog(re: RegExp, timeout = APP_START_TIMEOUT_MS): Promise<RegExpMatchArray> {
    return waitFor(() => this.log().match(re), { timeout, what: `log line ${re} (app output: ${this.output.slice(-500)})` });
  }

  /**
   * A new shell session in the app's HOME, shown in the window: waits for the control socket and
   * the shell's prompt (`prompt` matches the screen text), then focuses it. `read` is its screen text.
   */
  async focusedShell(prompt: RegExp): Promise<{ id: string; read: () => Promise<string> }> {
    await waitFor(async () => (await this.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const id = (await this.cli(['sessions', 'spawn', '--cwd', this.home])).stdout.trim();
    const read = async () => (await this.cli(['sessions', 'read', id])).stdout;
    await waitFor(async () => prompt.test(await read()), { what: 'the shell prompt' });
    const focused = await this.cli(['sessions', 'focus', id]);
    if (focused.code !== 0) throw new Error(`sessions focus ${id} failed: ${focused.stderr}`);
    return { id, read };
  }

  /** The X window id of the first visible top-level window with this exact title. */
  async waitForWindow(title = 'Termio', timeout = APP_START_TIMEOUT_MS): Promise<string> {
    return waitFor(
      () => {
        if (this.exitInfo) throw new Error(`app exited early: ${JSON.stringify(this.exitInfo)} (${this.display.health()})\n${this.output}`);
        try {
          return this.display.xdotool('search', '--onlyvisible', '--name', `^${title}$`).split('\n')[0] || null;
        } catch {
          return null;
        }
      },
      { timeout, what: `a visible window titled ${title}` },
    );
  }

  windowGeometry(id: string): { x: number; y: number; width: number; height: number } {
    const out = this.display.xdotool('getwindowgeometry', '--shell', id);
    const get = (k: string) => Number(out.match(new RegExp(`${k}=(\\d+)`))?.[1]);
    return { x: get('X'), y: get('Y'), width: get('WIDTH'), height: get('HEIGHT') };
  }

  screenshot(name: string): string {
    return this.display.screenshot(join(screenshotDir, `${name.replace(/[^\w.-]+/g, '_')}.png`));
  }

  /** Runs the real termio CLI against this app. */
  cli(args: string[], opts: { timeout?: number; input?: string } = {}): Promise<CliResult> {
    return runCli(join(repoRoot, 'bin', 'termio'), AppUnderTest.envFor(this.display, this.home, this.termioHome), args, opts);
  }

  /** SIGTERM, then waits for the exit (or kills after the timeout so a test never hangs). */
  async stop(timeout = 5_000): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
    const start = Date.now();
    if (!this.exitInfo) {
      this.proc.kill('SIGTERM');
      const killer = setTimeout(() => this.proc.kill('SIGKILL'), timeout);
      await this.exited;
      clearTimeout(killer);
    }
    return { ms: Date.now() - start, ...this.exitInfo! };
  }

  /**
   * Ends the app and everything the test started under its HOME (an agent's detached daemon, like
   * Codex's `app-server`, escapes the session's process group and would outlive the test), then
   * removes the HOME. Returns the pids that were still running under it.
   */
  async cleanup(): Promise<number[]> {
    if (!this.exitInfo) this.proc.kill('SIGKILL');
    const left = processesWithHome(this.home);
    await endProcessesWithHome(this.home);
    // An agent may still be writing into HOME as it exits (Claude Code saves on hangup).
    rmSync(this.home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    return left;
  }
}

/**
 * Puts fake agent CLIs on the login shell's PATH of a test HOME, the way a user's own install
 * would: a bin folder with one wrapper per agent command, added to PATH by ~/.bash_profile.
 */
export function installFakeAgents(home: string, dialects: string[] = ['claude']): string {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  const commands: Record<string, string> = { claude: 'claude', codex: 'codex', gemini: 'gemini', grok: 'grok', copilot: 'copilot', cursor: 'cursor-agent' };
  for (const d of dialects) {
    writeFake(bin, commands[d] ?? d, 'fake-agent.mjs', d);
  }
  writeFileSync(join(home, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
  return bin;
}

/**
 * Puts the real Claude Code CLI on the login shell's PATH of a test HOME, as a user's install would
 * be, ready to start offline in `project` as a returning user (writeClaudeUser: onboarding done,
 * the folder trusted, manual mode, no one-time offers): env -u drops variables a developer's or
 * CI's environment may carry (an API key, another config dir), CLAUDE_ENV keeps self-updates off.
 * `env` adds to the CLI's environment; an ANTHROPIC_API_KEY in it is approved as the user's.
 */
export function installRealClaude(home: string, cliPath: string, project: string, env: Record<string, string> = {}): void {
  mkdirSync(join(home, 'bin'), { recursive: true });
  const assignments = Object.entries({ ...CLAUDE_ENV, ...env })
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  writeFileSync(
    join(home, 'bin', 'claude'),
    `#!/bin/sh\nexec env -u CLAUDE_CONFIG_DIR -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN ${assignments} "${cliPath}" "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(home, '.bash_profile'), `export PATH="${join(home, 'bin')}:$PATH"\n`);
  writeClaudeUser(home, { trusted: [project], ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}) });
}

/**
 * A throwaway HOME with a `project` folder and the newest real Claude Code installed in it as
 * installRealClaude does. Where it cannot be installed the test is skipped with the reason, and
 * null returned; where CI is set ensureNewestClaude throws instead.
 */
export async function homeWithRealClaude(ctx: TestContext): Promise<{ home: string; project: string } | null> {
  const claude = await ensureNewestClaude();
  if (!claude.ok) {
    ctx.skip(`the real Claude Code CLI is not available: ${claude.reason}`);
    return null;
  }
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
  const project = join(home, 'project');
  mkdirSync(project);
  installRealClaude(home, claude.path, project);
  return { home, project };
}

/** Runs a termio CLI command to completion; JSON output parsed when asked. */
export async function cliJson<T = unknown>(app: AppUnderTest, args: string[]): Promise<T> {
  const r = await app.cli([...args, '--json']);
  if (r.code !== 0) throw new Error(`termio ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** `termio sessions list --json`: the sessions of its reply. */
export async function listSessions<T = unknown>(app: AppUnderTest): Promise<T[]> {
  return (await cliJson<{ sessions: T[] }>(app, ['sessions', 'list'])).sessions;
}

const onPath = (cmd: string) => spawnSync('which', [cmd]).status === 0;
/** Why menu-bar tests are skipped: they need a system tray host and a notification daemon. */
export const desktopSkipReason = skipUnlessRequired(
  e2eSkipReason ??
    (['dbus-daemon', 'dbus-send', 'trayer', 'dunst', 'notify-send', 'xwininfo'].find((c) => !onPath(c))
      ? 'dbus-daemon, trayer, dunst and notify-send are needed (npm test installs them on Debian)'
      : null),
);

/** A notification the daemon showed, as its rule script saw it. */
export interface ShownNotification {
  appName: string;
  summary: string;
  body: string;
  urgency: string;
}

export interface XWindow {
  id: string;
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Every window on the display with its absolute geometry and depth in the tree (xwininfo). */
export function windowTree(display: Display): Array<XWindow & { depth: number; className: string }> {
  const r = spawnSync('xwininfo', ['-display', display.name, '-root', '-tree'], { encoding: 'utf8' });
  const out: Array<XWindow & { depth: number; className: string }> = [];
  for (const line of r.stdout.split('\n')) {
    const m = line.match(/^(\s*)(0x[0-9a-f]+) (?:"([^"]*)"|\(has no name\)):? (?:\(([^)]*)\))?\s*(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+(-?\d+)\+(-?\d+)/);
    if (!m) continue;
    out.push({
      depth: m[1]!.length,
      id: m[2]!,
      name: m[3] ?? '',
      className: m[4] ?? '',
      width: Number(m[5]),
      height: Number(m[6]),
      x: Number(m[7]),
      y: Number(m[8]),
    });
  }
  return out;
}

/**
 * The desktop services a menu-bar app talks to, all private to one test display: a D-Bus
 * session bus, trayer (an XEmbed system tray at the top-right edge) and dunst (the notification
 * daemon; a rule script appends every notification it shows to a file).
 */
export class TrayDesktop {
  private constructor(
    readonly display: Display,
    readonly dir: string,
    readonly busAddress: string,
    private readonly procs: ChildProcess[],
  ) {}

  static async start(display: Display): Promise<TrayDesktop> {
    const dir = mkdtempSync(join(tmpdir(), 'termio-desktop-'));
    const procs: ChildProcess[] = [];
    // A bus with no service directories: nothing is auto-started, so the only notification
    // daemon is ours (the system's dunst.service would start one without DISPLAY or our rule).
    const busConfig = join(dir, 'bus.conf');
    writeFileSync(
      busConfig,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${dir}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
    );
    const bus = spawn('dbus-daemon', [`--config-file=${busConfig}`, '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    procs.push(bus);
    let busOut = '';
    bus.stdout!.on('data', (d: Buffer) => (busOut += d.toString()));
    const busAddress = await waitFor(() => (busOut.includes('\n') ? busOut.trim() : null), { what: 'the D-Bus session bus address' });
    const env = { ...process.env, DISPLAY: display.name, DBUS_SESSION_BUS_ADDRESS: busAddress, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') };
    const desktop = new TrayDesktop(display, dir, busAddress, procs);

    // Dark like a menu bar, so the icon's colours stand out; the panel grows with its icons.
    procs.push(
      spawn(
        'trayer',
        [
          '--edge',
          'top',
          '--align',
          'right',
          '--widthtype',
          'request',
          '--height',
          '32',
          '--SetDockType',
          'true',
          '--SetPartialStrut',
          'true',
          '--transparent',
          'true',
          '--alpha',
          '0',
          '--tint',
          '0x202020',
        ],
        { env, stdio: 'ignore' },
      ),
    );
    await waitFor(() => desktop.panel(), { what: 'the trayer panel' });

    const script = join(dir, 'capture.sh');
    writeFileSync(
      script,
      `#!/bin/sh\n# dunst runs this for every notification it shows: appname summary body icon urgency\nprintf '%s\\t%s\\t%s\\t%s\\n' "$1" "$2" "$3" "$5" >> "${desktop.capturedFile}"\n`,
      { mode: 0o755 },
    );
    const rc = join(dir, 'dunstrc');
    writeFileSync(
      rc,
      `[global]\n    monitor = 0\n    follow = none\n    origin = bottom-right\n    offset = 10x10\n\n[capture]\n    summary = "*"\n    script = ${script}\n`,
    );
    procs.push(spawn('dunst', ['-config', rc], { env, stdio: 'ignore' }));
    const owned = () =>
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
        { env, encoding: 'utf8' },
      ).stdout.includes('true');
    await waitFor(owned, { what: 'dunst to own org.freedesktop.Notifications' });
    return desktop;
  }

  get capturedFile(): string {
    return join(this.dir, 'notifications.tsv');
  }

  /** What an app on this desktop needs in its environment. */
  env(): Record<string, string> {
    return { DBUS_SESSION_BUS_ADDRESS: this.busAddress };
  }

  /** Every notification dunst has shown so far, oldest first. */
  notifications(): ShownNotification[] {
    if (!existsSync(this.capturedFile)) return [];
    return readFileSync(this.capturedFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [appName = '', summary = '', body = '', urgency = ''] = l.split('\t');
        return { appName, summary, body, urgency };
      });
  }

  /** trayer's panel window, once it is up. */
  panel(): XWindow | null {
    return windowTree(this.display).find((w) => w.name === 'panel' && w.className.includes('trayer')) ?? null;
  }

  /** The icon window an app docked into the tray (the first client of the panel), or null. */
  trayIcon(): XWindow | null {
    const tree = windowTree(this.display);
    const at = tree.findIndex((w) => w.name === 'panel' && w.className.includes('trayer'));
    if (at < 0) return null;
    const panel = tree[at]!;
    // Each client sits in a socket window of the panel: two levels below it (xwininfo indents 3 a level).
    for (let i = at + 1; i < tree.length && tree[i]!.depth > panel.depth; i++) {
      const w = tree[i]!;
      if (w.depth >= panel.depth + 6 && w.width > 4 && w.height > 4) return w;
    }
    return null;
  }

  async stop(): Promise<void> {
    for (const p of this.procs.reverse()) {
      if (p.exitCode !== null || p.signalCode !== null) continue;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The usual lifecycle of an e2e file: one private display for the file, and after each test the
 * app it launched (if any) screenshotted (when `shots` names the file), stopped and cleaned up.
 */
export function useDesktop(opts: { size?: string; shots?: string; started(display: Display): void; current(): AppUnderTest | undefined; done(): void }): void {
  let display: Display | undefined;
  beforeAll(async () => {
    display = await Display.start(opts.size);
    opts.started(display);
  });
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async (ctx) => {
    const app = opts.current();
    if (!app) return;
    if (opts.shots && !app.exit) app.screenshot(`${opts.shots}-${ctx.task.name}`);
    await app.stop();
    await app.cleanup();
    opts.done();
  });
}

/**
 * The app as the tray tests want it: a fresh HOME with the fake claude on PATH and its hooks
 * installed, the welcome already seen (plus `settings`), the window up, the control socket
 * answering and the tray icon docked in `desktop`'s tray. `started` gets the app as soon as it
 * runs, so that the test's own clean-up stops it if a later step fails.
 */
export async function launchTrayApp(
  display: Display,
  desktop: TrayDesktop,
  opts: { settings?: Record<string, unknown>; env?: Record<string, string>; started(app: AppUnderTest): void },
): Promise<{ app: AppUnderTest; win: string; home: string }> {
  const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
  installFakeAgents(home, ['claude']);
  const app = await AppUnderTest.launch(display, { home, env: { ...desktop.env(), ...opts.env }, ...(opts.settings ? { settings: opts.settings } : {}) });
  opts.started(app);
  const win = await app.waitForWindow();
  await waitFor(async () => (await app.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
  const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
  if (hooks.code !== 0) throw new Error(`termio hooks install failed: ${hooks.stdout}${hooks.stderr}`);
  await waitFor(() => desktop.trayIcon(), { what: 'the app to dock its icon in the tray' });
  return { app, win, home };
}
