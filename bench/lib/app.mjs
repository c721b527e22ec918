// The real Termio app for a benchmark: started from dist/ in a temporary HOME on a given X
// display, driven through the termio CLI and xdotool, observed through its debug log. The app is a
// client of the session host (termio-host), which it starts on first need and which owns every
// pty: quitting the app leaves the host and its sessions running, so a bench ends both.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const termio = join(root, 'bin', 'termio');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Apps started and not stopped: a bench that throws still ends them and their hosts as it exits. */
const running = new Set();
process.once('exit', () => {
  for (const app of running) {
    app.proc.kill('SIGKILL');
    app.cli('host', 'stop');
  }
});

export class App {
  constructor(display, home, extraEnv = {}) {
    this.home = home;
    this.env = {
      PATH: `${join(home, 'bin')}:${process.env.PATH}`,
      HOME: home,
      TERMIO_HOME: join(home, '.termio'),
      DISPLAY: display,
      SHELL: '/bin/sh',
      XDG_RUNTIME_DIR: home,
      TERMIO_LOG_LEVEL: 'debug',
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
      LANG: 'C.UTF-8',
      ...extraEnv,
    };
    mkdirSync(join(home, '.termio', 'config'), { recursive: true });
    writeFileSync(join(home, '.termio', 'config', 'settings.json'), '{ "welcomeShown": true }');
  }
  start() {
    /** Wall clock (ms) just before the process was started: figures "since start" count from here. */
    this.startedAt = performance.timeOrigin + performance.now();
    this.proc = spawn(process.execPath, [join(root, 'dist', 'app', 'main.js')], { env: this.env, stdio: 'ignore' });
    this.exited = new Promise((r) => this.proc.once('exit', r));
    running.add(this);
  }
  /** The app's log, or the host's (`which` = 'host'): each process writes its own. */
  log(which = 'termio') {
    try {
      return readFileSync(join(this.home, '.termio', 'logs', `${which}.log`), 'utf8');
    } catch {
      return '';
    }
  }
  entries(msg, which = 'termio') {
    return this.log(which)
      .split('\n')
      .filter((l) => l.includes(` ${msg} {`))
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
  }
  async waitFor(check, what, timeout = 30_000) {
    const t0 = Date.now();
    for (;;) {
      const v = check();
      if (v) return v;
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  }
  cli(...args) {
    return spawnSync(termio, args, { env: this.env, encoding: 'utf8' });
  }
  xdotool(...args) {
    return spawnSync('xdotool', args, { env: this.env, encoding: 'utf8' }).stdout.trim();
  }
  /** The session host's pid (the process that owns the ptys and parses their output). */
  hostPid() {
    const r = this.cli('host', 'status', '--json');
    return r.status === 0 ? JSON.parse(r.stdout).pid : null;
  }
  /** Quits the app: it detaches, and the host keeps the sessions. */
  async quit() {
    this.proc.kill('SIGTERM');
    await this.exited;
  }
  /** Quits the app and stops the host, which ends every session. */
  async stop() {
    await this.quit();
    this.cli('host', 'stop');
    running.delete(this);
  }
}
