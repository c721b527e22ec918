// `termio host status|stop|start|spawn|list`: the session host from the command line — whether
// it runs and what it holds, stopping it (which ends its sessions), and starting a session in it
// to `termio attach` to. Every verb but status and stop starts the host on first need.
import { isAbsolute, resolve } from 'node:path';
import type { HostSessionInfo } from '../../protocol/hostMessages';
import type { HostClient } from '../client/hostClient';
import { shortenHome } from '../../protocol/homePath';
import { isProcessAlive } from '../shared/processes';
import { connectHost } from '../client/hostLauncher';
import { ExitCode, type CliIo } from './cliIo';

const HELP = `Usage: termio host <verb> [options]

The session host (termio-host) owns the sessions it starts, so they keep running while no
window or terminal is attached. \`termio attach ID\` shows one in this terminal.
(The Termio app does not attach to the host yet: its own tabs still live in the app.)

Verbs:
  status [--json]            whether a host runs: pid, version, sessions, clients, memory
  stop                       end the host and every session it holds
  start                      start the host if none runs
  list [--json]              the host's sessions
  spawn [--cwd DIR] [--json] [-- COMMAND ARGS...]
                             start a session (default: your login shell in the current folder)
                             and print its id

Exit codes: 0 ok, 2 bad usage, 4 no host running (status, stop), 1 anything else.
`;

/** A stop gives sessions 0.8 s to leave after the hang-up, then kills them; 5 s covers that on a
 *  loaded machine. */
const STOP_WAIT_MS = 5_000;
/** How often `stop` checks whether the host process is gone: the exit shows within a frame. */
const STOP_POLL_MS = 20;

function fmtBytes(n: number): string {
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function sessionLine(s: HostSessionInfo, env: NodeJS.ProcessEnv): string {
  const what = s.exited ? `exited ${s.exited.signal ? `by signal ${s.exited.signal}` : s.exited.exitCode}` : `pid ${s.pid}`;
  return `${s.id}  ${what.padEnd(14)} ${`${s.cols}x${s.rows}`.padEnd(8)} ${String(s.views).padStart(2)} attached  ${shortenHome(s.cwd, env.HOME ?? '')}  ${s.argv.join(' ')}`;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(HELP);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const dashes = rest.indexOf('--');
  const opts = dashes >= 0 ? rest.slice(0, dashes) : rest;
  const command = dashes >= 0 ? rest.slice(dashes + 1) : [];
  const json = opts.includes('--json');
  let cwd = io.cwd;
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i]!;
    if (a === '--json') continue;
    if (a === '--cwd' && verb === 'spawn' && opts[i + 1] !== undefined) {
      const d = opts[++i]!;
      cwd = isAbsolute(d) ? d : resolve(io.cwd, d);
      continue;
    }
    io.err(`termio host ${verb}: unexpected argument '${a}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  if (command.length > 0 && verb !== 'spawn') {
    io.err(`termio host ${verb}: takes no command\n`);
    return ExitCode.usage;
  }
  if (!['status', 'stop', 'start', 'list', 'spawn'].includes(verb)) {
    io.err(`termio host: unknown verb '${verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  const start = verb !== 'status' && verb !== 'stop';
  const client = await connectHost(io.env, { client: 'termio-cli', start });
  if ('kind' in client) {
    if (client.kind === 'notRunning') {
      if (json && verb === 'status') io.out(`${JSON.stringify({ schemaVersion: 1, running: false })}\n`);
      else io.err(`termio host: ${client.message}\n`);
      return ExitCode.hostNotRunning;
    }
    io.err(`termio host: ${client.message}\n`);
    return ExitCode.failed;
  }
  try {
    return await runVerb(verb, client, cwd, command, json, io);
  } finally {
    client.close();
  }
}

async function runVerb(verb: string, client: HostClient, cwd: string, command: string[], json: boolean, io: CliIo): Promise<number> {
  const failed = (message: string): number => {
    io.err(`termio host ${verb}: ${message}\n`);
    return ExitCode.failed;
  };
  switch (verb) {
    case 'start':
      io.out(`termio-host ${client.hello.hostVersion} is running (pid ${client.hello.pid})\n`);
      return ExitCode.ok;
    case 'status': {
      const r = await client.request('host.status', {});
      if (!r.ok) return failed(r.error.message);
      const s = r.result;
      if (json) io.out(`${JSON.stringify({ schemaVersion: 1, running: true, ...s })}\n`);
      else {
        io.out([
          `termio-host ${s.version} (protocol ${s.protocol}) running, pid ${s.pid}, since ${s.startedAt}`,
          `sessions: ${s.sessions}   clients: ${s.clients - 1} besides this one   memory: ${fmtBytes(s.rssBytes)}`,
          `socket: ${s.socket}`,
          `log: ${s.log}`,
        ].join('\n') + '\n');
      }
      return ExitCode.ok;
    }
    case 'stop': {
      const pid = client.hello.pid;
      const r = await client.request('host.stop', {});
      if (!r.ok) return failed(r.error.message);
      // Returns once the host process has gone (its sessions ended with it), so a script can
      // start another one right after.
      await new Promise<void>((resolveClosed) => client.onClose(() => resolveClosed()));
      const deadline = Date.now() + STOP_WAIT_MS;
      while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, STOP_POLL_MS));
      if (isProcessAlive(pid)) return failed(`the host (pid ${pid}) closed its socket but is still running after ${STOP_WAIT_MS} ms`);
      io.out(`termio-host (pid ${pid}) stopped\n`);
      return ExitCode.ok;
    }
    case 'list': {
      const r = await client.request('sessions.list', {});
      if (!r.ok) return failed(r.error.message);
      if (json) io.out(`${JSON.stringify({ schemaVersion: 1, sessions: r.result.sessions })}\n`);
      else if (r.result.sessions.length === 0) io.out('no sessions\n');
      else io.out(r.result.sessions.map((s) => sessionLine(s, io.env)).join('\n') + '\n');
      return ExitCode.ok;
    }
    case 'spawn': {
      const r = await client.request('sessions.spawn', { cwd, ...(command.length ? { argv: command } : {}) });
      if (!r.ok) return failed(r.error.message);
      if (json) io.out(`${JSON.stringify({ schemaVersion: 1, session: r.result.session })}\n`);
      else io.out(`${r.result.session.id}\n`);
      return ExitCode.ok;
    }
  }
  return ExitCode.usage;
}
