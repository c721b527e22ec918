// A real headless host for control tests: SessionRegistry (real ptys running /bin/sh) + ControlServer on a
// real Unix socket, in a temporary HOME and TERMIO_HOME; plus raw-socket helpers for the abuse tests.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ControlServer, type ControlLimits, type ControlServerOptions } from '../../src/app/host/control/controlServer';
import { termioPaths, type TermioPaths } from '../../src/app/services/paths';
import { SessionRegistry, shellSpawner } from '../../src/app/host/sessions/sessionRegistry';
import { ControlClient } from '../../src/app/client/controlClient';

export const repoRoot = resolve(__dirname, '..', '..');

export interface TestHost {
  home: string;
  paths: TermioPaths;
  env: NodeJS.ProcessEnv;
  registry: SessionRegistry;
  server: ControlServer;
  socket: string;
  /** A folder under the temporary home (created). */
  dir(name: string): string;
  client(): Promise<ControlClient>;
  dispose(): Promise<void>;
}

/** A /bin/sh with a fixed prompt and no rc files, so screens are predictable. */
export const testShell = () => shellSpawner(['/bin/sh'], { PS1: '$ ', ENV: '' });

export async function startTestHost(opts: { limits?: Partial<ControlLimits>; server?: Partial<ControlServerOptions> } = {}): Promise<TestHost> {
  // realpath: macOS's tmpdir is a symlink, and the shell reports the resolved folder.
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'tctl-')));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio') };
  const paths = termioPaths(env);
  const registry = new SessionRegistry({ spawner: testShell(), defaultCwd: home });
  const server = new ControlServer({ ...opts.server, paths, registry, limits: opts.limits ?? {} });
  const listening = await server.listen();
  if (!listening.ok) throw new Error(`test host cannot listen: ${listening.message}`);
  const clients: ControlClient[] = [];
  return {
    home,
    paths,
    env,
    registry,
    server,
    socket: listening.socket,
    dir(name) {
      const d = join(home, name);
      mkdirSync(d, { recursive: true });
      return d;
    },
    async client() {
      const c = await ControlClient.connect(env);
      if (!(c instanceof ControlClient)) throw new Error(c.message);
      clients.push(c);
      return c;
    },
    async dispose() {
      for (const c of clients) c.close();
      await server.close();
      registry.dispose();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A raw connection that collects every line the server sends and notices when it closes. */
export interface RawPeer {
  socket: Socket;
  lines: string[];
  closed: Promise<void>;
  isClosed(): boolean;
  replies(): Array<Record<string, unknown>>;
}

export function rawConnect(path: string): Promise<RawPeer> {
  return new Promise((resolveConnect, reject) => {
    const socket = createConnection(path);
    const lines: string[] = [];
    let buf = '';
    let closed = false;
    const closedP = new Promise<void>((r) =>
      socket.on('close', () => {
        closed = true;
        r();
      }),
    );
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) !== -1) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    let connected = false;
    socket.on('error', (err) => {
      if (!connected) reject(err);
    });
    socket.once('connect', () => {
      connected = true;
      resolveConnect({
        socket,
        lines,
        closed: closedP,
        isClosed: () => closed,
        replies: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
      });
    });
  });
}

/** Runs the built bin/termio (npm run build first) without blocking this process's loop (the host
 *  lives here); a run that takes longer than `timeoutMs` is ended. */
export function termio(args: string[], env: NodeJS.ProcessEnv, cwd?: string, timeoutMs = 20_000): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [join(repoRoot, 'bin', 'termio'), ...args],
      { env, cwd: cwd ?? env.HOME, encoding: 'utf8', timeout: timeoutMs },
      (err, stdout, stderr) => {
        const status = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
        resolveRun({ status, stdout, stderr });
      },
    );
  });
}
