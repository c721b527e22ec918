// `termio host status|stop|restart|start|spawn|list`: the session host from the command line —
// whether it runs and what it holds, stopping it (which ends its sessions), restarting it (its
// agents keep running in their session holders), and starting a session in it to `termio attach`
// to. Every verb but status, stop and restart starts the host on first need.
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KEEPS_AGENTS_CAPABILITY, type HostError, type HostStatus } from '../../protocol/hostMessages';
import type { SessionInfo } from '../../protocol/sessionInfo';
import type { HostClient } from '../client/hostClient';
import { shortenHome } from '../../protocol/homePath';
import { isProcessAlive } from '../services/processes';
import { connectHost } from '../client/hostLauncher';
import { ExitCode, type CliIo } from './cliIo';
import { CLI_JSON_SCHEMA_VERSION, printJsonError, printOk } from './output';

const HELP = `Usage: termio host <verb> [options]

The session host (termio-host) owns every session, so they keep running while no window or
terminal is attached. \`termio attach ID\` shows one in this terminal.

Verbs:
  status [--json]            whether a host runs: pid, version, sessions, clients, memory
  stop                       end the host and every session it holds (tabs are kept for resume)
  restart                    start a new host in place of the running one; with session holders
                             every agent keeps running (same process, screen and scrollback)
  start                      start the host if none runs
  --stdio                    start the host if none runs and speak its client protocol on
                             stdin/stdout (what a hub on another machine runs over ssh)
  list [--json]              the host's sessions
  spawn [--cwd DIR] [--json] [-- COMMAND ARGS...]
                             start a session (default: your login shell in the current folder)
                             and print its id

Exit codes: 0 ok, 2 bad usage, 4 no host running (status, stop), 70 a bug (a host that
keeps running after it was stopped), 1 anything else. With --json an error is also a line
{"schemaVersion":1,"ok":false,"code":…,"message":…} on stdout.
`;

/** A stop gives sessions 0.8 s to leave after the hang-up, then kills them; 5 s covers that on a
 *  loaded machine. */
const STOP_WAIT_MS = 5_000;
/** How often `stop` checks whether the host process is gone: the exit shows within a frame. */
const STOP_POLL_MS = 20;
const VERBS = ['status', 'stop', 'restart', 'start', 'list', 'spawn'];

function fmtBytes(n: number): string {
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function holdersLine(h: HostStatus['holders']): string {
  if (!h) return 'holders: unknown (this host predates session holders): agents end when it does';
  if (h.available) return `holders: on, ${h.held} session${h.held === 1 ? '' : 's'} held: agents keep running through a host restart`;
  return `holders: off (${h.reason ?? 'unavailable'}): agents end when the host does`;
}

/** Replaces the running host (if any) with a new one: SIGUSR2 to a host whose agents survive it
 *  (they stay in their holders and the new host adopts them), else SIGTERM (sessions end, and the
 *  app resumes them). Returns once the new host answers. */
async function restartHost(client: HostClient | null, io: CliIo): Promise<number> {
  let before = '';
  if (client) {
    const pid = client.hello.pid;
    const keeps = client.hello.capabilities.includes(KEEPS_AGENTS_CAPABILITY);
    client.close();
    try {
      process.kill(pid, keeps ? 'SIGUSR2' : 'SIGTERM');
    } catch {
      // It went on its own.
    }
    const deadline = Date.now() + STOP_WAIT_MS;
    while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, STOP_POLL_MS));
    if (isProcessAlive(pid)) {
      io.err(`termio host restart: the host (pid ${pid}) is still running after ${STOP_WAIT_MS} ms\n`);
      return ExitCode.failed;
    }
    before = keeps ? ` in place of pid ${pid}; agents kept running` : ` in place of pid ${pid}; its sessions ended (the app resumes them)`;
  }
  const next = await connectHost(io.env, { client: 'termio-cli', start: true });
  if ('kind' in next) {
    io.err(`termio host restart: ${next.message}\n`);
    return ExitCode.failed;
  }
  io.out(`termio-host ${next.hello.hostVersion} is running (pid ${next.hello.pid})${before}\n`);
  next.close();
  return ExitCode.ok;
}

function sessionLine(s: SessionInfo, env: NodeJS.ProcessEnv): string {
  const what = s.exited ? `exited ${s.exited.signal ? `by signal ${s.exited.signal}` : s.exited.exitCode}` : `pid ${s.pid}`;
  return `${s.id}  ${what.padEnd(14)} ${`${s.cols}x${s.rows}`.padEnd(8)} ${String(s.views).padStart(2)} attached  ${shortenHome(s.cwd, env.HOME ?? '')}  ${s.argv.join(' ')}`;
}

interface HostArgs {
  verb: string;
  cwd: string;
  command: string[];
  json: boolean;
}

/** The verb, its options (before `--`) and the command (after it); a usage message when wrong. */
function parseHostArgs(args: string[], io: CliIo): HostArgs | string {
  const [verb = '', ...rest] = args;
  const dashes = rest.indexOf('--');
  const command = dashes >= 0 ? rest.slice(dashes + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({
      args: dashes >= 0 ? rest.slice(0, dashes) : rest,
      options: { json: { type: 'boolean' }, cwd: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    return `termio host ${verb}: ${(err as Error).message}`;
  }
  if (!VERBS.includes(verb)) return `termio host: unknown verb '${verb}'`;
  const { json = false, cwd } = parsed.values;
  if (cwd !== undefined && verb !== 'spawn') return `termio host ${verb}: unexpected argument '--cwd'`;
  if (command.length > 0 && verb !== 'spawn') return `termio host ${verb}: takes no command`;
  return { verb, json, command, cwd: cwd === undefined ? io.cwd : isAbsolute(cwd) ? cwd : resolve(io.cwd, cwd) };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const first = args[0];
  if (first === '--stdio' && args.length === 1) return (require('./hostStdio') as typeof import('./hostStdio')).runStdio(io);
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io.out(HELP);
    return first === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const parsed = parseHostArgs(args, io);
  if (typeof parsed === 'string') {
    io.err(`${parsed}\n\n${HELP}`);
    return ExitCode.usage;
  }
  const { verb, json } = parsed;
  const start = verb !== 'status' && verb !== 'stop' && verb !== 'restart';
  const client = await connectHost(io.env, { client: 'termio-cli', start });
  if ('kind' in client) {
    if (client.kind === 'notRunning') {
      if (verb === 'restart') return restartHost(null, io);
      // An error like any other (exit 4), with `running: false` for a script that asks just that.
      if (json)
        io.out(`${JSON.stringify({ schemaVersion: CLI_JSON_SCHEMA_VERSION, ok: false, code: 'hostNotRunning', message: client.message, running: false })}\n`);
      io.err(`termio host: ${client.message}\n`);
      return ExitCode.hostNotRunning;
    }
    if (json) printJsonError(io, 'spawnFailed', client.message);
    io.err(`termio host: ${client.message}\n`);
    return ExitCode.failed;
  }
  if (verb === 'restart') return restartHost(client, io);
  try {
    return await runVerb(parsed, client, io);
  } finally {
    client.close();
  }
}

async function runVerb({ verb, cwd, command, json }: HostArgs, client: HostClient, io: CliIo): Promise<number> {
  // With --json an error is an object on stdout too, as every other command's (docs/cli.md, "Errors").
  const failed = (error: HostError): number => {
    if (json) printJsonError(io, error.code, error.message);
    io.err(`termio host ${verb}: ${error.message}\n`);
    return error.code === 'internal' ? ExitCode.internal : ExitCode.failed;
  };
  const printJson = (fields: Record<string, unknown>) => printOk(io, fields);
  switch (verb) {
    case 'start':
      io.out(`termio-host ${client.hello.hostVersion} is running (pid ${client.hello.pid})\n`);
      return ExitCode.ok;
    case 'status': {
      const r = await client.request('host.status', {});
      if (!r.ok) return failed(r.error);
      const s = r.result;
      if (json) printJson({ running: true, ...s });
      else {
        io.out(
          [
            `termio-host ${s.version} (protocol ${s.protocol}) running, pid ${s.pid}, since ${s.startedAt}`,
            `sessions: ${s.sessions}   clients: ${s.clients - 1} besides this one   memory: ${fmtBytes(s.rssBytes)}`,
            holdersLine(s.holders),
            `socket: ${s.socket}`,
            `log: ${s.log}`,
          ].join('\n') + '\n',
        );
      }
      return ExitCode.ok;
    }
    case 'stop': {
      const pid = client.hello.pid;
      const r = await client.request('host.stop', {});
      if (!r.ok) return failed(r.error);
      // Returns once the host process has gone (its sessions ended with it), so a script can
      // start another one right after.
      await new Promise<void>((resolveClosed) => client.onClose(() => resolveClosed()));
      const deadline = Date.now() + STOP_WAIT_MS;
      while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, STOP_POLL_MS));
      if (isProcessAlive(pid))
        return failed({ code: 'internal', message: `the host (pid ${pid}) closed its socket but is still running after ${STOP_WAIT_MS} ms` });
      io.out(`termio-host (pid ${pid}) stopped\n`);
      return ExitCode.ok;
    }
    case 'list': {
      const r = await client.request('sessions.list', {});
      if (!r.ok) return failed(r.error);
      if (json) printJson({ sessions: r.result.sessions });
      else if (r.result.sessions.length === 0) io.out('no sessions\n');
      else io.out(r.result.sessions.map((s) => sessionLine(s, io.env)).join('\n') + '\n');
      return ExitCode.ok;
    }
    case 'spawn': {
      // The same verbs as \`termio sessions spawn|run\`, with the same checks on who asks.
      const r = command.length ? await client.request('sessions.run', { cwd, argv: command }) : await client.request('sessions.spawn', { cwd });
      if (!r.ok) return failed(r.error);
      if (json) printJson({ id: r.result.id, session: r.result.session });
      else io.out(`${r.result.id}\n`);
      return ExitCode.ok;
    }
  }
  return ExitCode.usage;
}
