// `termio DIR`: opens a folder as a new session; when no session host runs, starts one (detached,
// so it outlives this command) and waits for its control socket. The host shows the session in the
// app, starting the app if none is attached.
import { openSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlClient, type ConnectFailure } from '../client/controlClient';
import { ExitCode, type CliIo } from './cliIo';

/** A host listens within a second; on a loaded machine its login-shell look-up can take a few: 30 s means it is not coming. */
const HOST_START_TIMEOUT_MS = 30_000;
/** How often to look for the new host's control.json while it starts. */
const HOST_START_POLL_MS = 50;

/** Starts the session host detached; returns a function that says whether it has already died (and how). */
export type HostStarter = (io: CliIo) => { exited(): string | null };

export const startHost: HostStarter = (io) => {
  // Lazy: only `termio DIR` with no host running pays for this module.
  const { spawnHost } = require('../client/hostLauncher') as typeof import('../client/hostLauncher');
  const { termioPaths, ensureDir } = require('../services/paths') as typeof import('../services/paths');
  const logsDir = ensureDir(termioPaths(io.env).logsDir);
  // Its early output (before its own log is open) goes to a file, not to this terminal.
  const out = openSync(join(logsDir, 'host-start.log'), 'a');
  const child = spawnHost(io.env, ['ignore', out, out]);
  closeSync(out);
  let exited: string | null = null;
  child.on('error', (err) => {
    exited = `cannot start the session host: ${err.message}`;
  });
  child.on('exit', (code, signal) => {
    // Exit 1: another host won the race, and its socket is about to appear.
    if (code !== 1) exited = `the session host exited at start (${signal ?? `code ${code}`}); see ${join(logsDir, 'host-start.log')}`;
  });
  child.unref();
  return { exited: () => exited };
};

async function waitForHost(io: CliIo, started: { exited(): string | null }): Promise<ControlClient | ConnectFailure> {
  const deadline = Date.now() + HOST_START_TIMEOUT_MS;
  for (;;) {
    const client = await ControlClient.connect(io.env);
    if (client instanceof ControlClient) return client;
    const died = started.exited();
    if (died) return { kind: 'hostNotRunning', message: died };
    if (Date.now() > deadline)
      return { kind: 'hostNotRunning', message: `the session host did not open its control socket within ${HOST_START_TIMEOUT_MS / 1000} s` };
    await new Promise((r) => setTimeout(r, HOST_START_POLL_MS));
  }
}

export async function openDir(dirArg: string, io: CliIo, starter: HostStarter = startHost): Promise<number> {
  const dir = resolve(io.cwd, dirArg);
  let client = await ControlClient.connect(io.env);
  if (!(client instanceof ControlClient)) {
    const started = starter(io);
    client = await waitForHost(io, started);
    if (!(client instanceof ControlClient)) {
      io.err(`termio: ${client.message}\n`);
      return ExitCode.hostNotRunning;
    }
  }
  try {
    const reply = await client.request('app.open', { dir });
    if (!reply.ok) {
      io.err(`termio: ${reply.error.message}\n`);
      return reply.lost ? ExitCode.hostNotRunning : reply.error.code === 'internal' ? ExitCode.internal : ExitCode.failed;
    }
    io.out(`${reply.result.id}\n`);
    return ExitCode.ok;
  } finally {
    client.close();
  }
}

/** `termio DIR [--help]`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`termio: ${(err as Error).message}\n`);
    return ExitCode.usage;
  }
  if (parsed.values.help) {
    io.out(
      'Usage: termio DIR\n\nOpens DIR as a new session in the running Termio, starting the app if it is not running.\nPrints the new session id. Exit codes: 0 ok, 1 the app refused, 4 the app could not be reached or started.\n',
    );
    return ExitCode.ok;
  }
  const [dir, ...rest] = parsed.positionals;
  if (dir === undefined || rest.length) {
    io.err(`termio: ${dir === undefined ? 'missing the folder' : `unexpected argument '${rest[0]}' after the folder`}\n`);
    return ExitCode.usage;
  }
  return openDir(dir, io);
}
