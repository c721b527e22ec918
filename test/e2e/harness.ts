// Drives the real Termio app in tests: a private Xvfb display, a temporary HOME and TERMIO_HOME,
// the app process, the termio CLI against it, screenshots, and a clean-exit check.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from '../helpers/waitFor';

export const repoRoot = resolve(__dirname, '..', '..');
export const screenshotDir = join(repoRoot, 'test-output', 'screenshots');

export const hasXvfb = spawnSync('which', ['Xvfb']).status === 0;
/** Why e2e tests are skipped where they cannot run (macOS, or Xvfb not installed). */
export const e2eSkipReason = hasXvfb ? null : 'Xvfb is not installed: npm test installs it on Debian; e2e tests need an X server';

/** A private X server, found through -displayfd so parallel runs never collide. */
export class Display {
  private constructor(
    readonly proc: ChildProcess,
    readonly name: string,
  ) {}

  static async start(size = '1280x800x24'): Promise<Display> {
    const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp', '-ac'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const fd3 = proc.stdio[3] as NodeJS.ReadableStream;
    fd3.on('data', (d: Buffer) => (out += d.toString()));
    const num = await waitFor(() => (/\d+\n/.test(out) ? out.trim() : null), { timeout: 10_000, what: 'Xvfb to report its display' });
    return new Display(proc, `:${num}`);
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

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie is not alive for our purposes: it has exited and only awaits its parent.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

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
  static async launch(display: Display, opts: { env?: Record<string, string>; home?: string; command?: string[] } = {}): Promise<AppUnderTest> {
    const home = opts.home ?? mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    const termioHome = join(home, '.termio');
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
      ...extra,
    };
  }

  get pid(): number {
    return this.proc.pid!;
  }

  get exit() {
    return this.exitInfo;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  async waitForLog(re: RegExp, timeout = 10_000): Promise<RegExpMatchArray> {
    return waitFor(() => this.log().match(re), { timeout, what: `log line ${re} (app output: ${this.output.slice(-500)})` });
  }

  /** The X window id of the first visible top-level window with this exact title. */
  async waitForWindow(title = 'Termio', timeout = 10_000): Promise<string> {
    return waitFor(
      () => {
        if (this.exitInfo) throw new Error(`app exited early: ${JSON.stringify(this.exitInfo)}\n${this.output}`);
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
    return new Promise((resolvePromise) => {
      const child = spawn(join(repoRoot, 'bin', 'termio'), args, {
        env: AppUnderTest.envFor(this.display, this.home, this.termioHome),
        cwd: this.home,
      });
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

  cleanup(): void {
    if (!this.exitInfo) this.proc.kill('SIGKILL');
    rmSync(this.home, { recursive: true, force: true });
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
    const file = join(bin, commands[d] ?? d);
    writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'test', 'fakes', 'fake-agent.mjs')}" ${d} "$@"\n`, { mode: 0o755 });
  }
  writeFileSync(join(home, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
  return bin;
}

/** Runs a termio CLI command to completion; JSON output parsed when asked. */
export async function cliJson<T = unknown>(app: AppUnderTest, args: string[]): Promise<T> {
  const r = await app.cli([...args, '--json']);
  if (r.code !== 0) throw new Error(`termio ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
