// `termio machines add|list|remove|install`: the saved SSH machines whose sessions this machine's
// host shows beside its own. Talks to the host (starting it if need be), which keeps
// ~/.termio/config/machines.json and one ssh connection per machine.
import { isAbsolute, resolve } from 'node:path';
import type { HostParams } from '../../protocol/hostMessages';
import type { MachineInfo } from '../../protocol/machines';
import { machineStateLine, machineTarget } from '../present/machineText';
import { connectHost } from '../client/hostLauncher';
import type { HostClient } from '../client/hostClient';
import { ExitCode, parseOrUsage, type CliIo, type ParsedArgs } from './cliIo';
import { printError, printOk } from './output';

const HELP = `Usage: termio machines <verb> [options]

Machines are other computers you reach with ssh. Termio's host keeps one connection to each
(your own OpenSSH: ~/.ssh/config, the agent, ProxyJump and known hosts apply) and shows their
sessions beside this one's, in the app, \`termio sessions\`, \`termio attach\` and on the phone.
Each machine needs Termio too: \`termio machines install NAME\` puts this version there.

Verbs:
  add NAME TARGET [--port N] [--identity FILE] [--ssh-option KEY=VALUE]... [--remote-command CMD]
                  save a machine (TARGET: [user@]host or an ssh alias) and connect to it
  list [--json]   every machine: its target, state (connected, connecting, reconnecting,
                  unreachable, versionMismatch, noTermio, sameMachine) and why,
                  its sessions
  remove NAME     forget a machine (its sessions keep running there)
  install NAME    copy this Termio's host and CLI there over ssh (headless; Node ≥ 20 needed)

Exit codes: 0 ok, 1 error (or: saved, but not connected), 2 bad usage, 4 no host could start.
`;

/** How long \`add\` waits to report whether the machine connected: ssh's 10 s connect timeout, plus
 *  a remote host's start. */
const ADD_WAIT_MS = 30_000;
/** How often \`add\` looks at the machine's state meanwhile. */
const ADD_POLL_MS = 100;

const stateLine = (m: MachineInfo): string => machineStateLine(m, Date.now());

const OPTIONS = {
  json: { type: 'boolean' },
  port: { type: 'string' },
  identity: { type: 'string' },
  'ssh-option': { type: 'string', multiple: true },
  'remote-command': { type: 'string' },
} as const;

export async function run(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(HELP);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const parsed = parseOrUsage(io, `machines ${verb}`, HELP, rest, OPTIONS);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.values.json === true;
  const wanted = ({ add: 2, list: 0, remove: 1, install: 1 } as Record<string, number>)[verb];
  if (wanted === undefined || parsed.positionals.length !== wanted) {
    io.err(
      wanted === undefined
        ? `termio machines: unknown verb '${verb}'\n\n${HELP}`
        : `termio machines ${verb}: expected ${wanted} argument${wanted === 1 ? '' : 's'}\n\n${HELP}`,
    );
    return ExitCode.usage;
  }
  if (verb === 'install') return (require('./machineInstall') as typeof import('./machineInstall')).install(parsed.positionals[0]!, io, json);
  const client = await connectHost(io.env, { client: 'termio-cli', start: true });
  if ('kind' in client) {
    printError(io, json, 'hostNotRunning', client.message);
    return client.kind === 'notRunning' ? ExitCode.hostNotRunning : ExitCode.failed;
  }
  try {
    if (verb === 'list') return await list(client, io, json);
    if (verb === 'remove') return await remove(client, parsed.positionals[0]!, io, json);
    const machine = machineToAdd(parsed, io);
    return machine === undefined ? ExitCode.usage : await add(client, machine, io, json);
  } finally {
    client.close();
  }
}

/** The machine `add` asks for, from its arguments; undefined (the error written) when --port is not a port. */
function machineToAdd(parsed: ParsedArgs<typeof OPTIONS>, io: CliIo): HostParams<'machines.add'> | undefined {
  const v = parsed.values;
  let port: number | undefined;
  if (v.port !== undefined) {
    port = Number(v.port);
    if (!/^\d+$/.test(v.port) || port < 1 || port > 65_535) {
      io.err(`termio machines add: --port must be a port number (1-65535), got '${v.port}'\n`);
      return undefined;
    }
  }
  const [name, target] = parsed.positionals as [string, string];
  return {
    name,
    target,
    port,
    identity: v.identity !== undefined ? (isAbsolute(v.identity) ? v.identity : resolve(io.cwd, v.identity)) : undefined,
    sshOptions: v['ssh-option']?.length ? v['ssh-option'] : undefined,
    remoteCommand: v['remote-command'],
  };
}

async function list(client: HostClient, io: CliIo, json: boolean): Promise<number> {
  const r = await client.request('machines.list', {});
  if (!r.ok) {
    printError(io, json, 'internal', r.error.message);
    return ExitCode.failed;
  }
  if (json) printOk(io, { machines: r.result.machines, errors: r.result.errors });
  else {
    const lines = r.result.machines.map((m) => `${m.name}  ${machineTarget(m)}  ${stateLine(m)}`);
    io.out(lines.length ? `${lines.join('\n')}\n` : 'No machines. Add one with: termio machines add NAME [user@]host\n');
    for (const e of r.result.errors) io.err(`termio: ${e}\n`);
  }
  return ExitCode.ok;
}

async function remove(client: HostClient, name: string, io: CliIo, json: boolean): Promise<number> {
  const r = await client.request('machines.remove', { name });
  if (!r.ok) {
    printError(io, json, 'badRequest', r.error.message);
    return ExitCode.failed;
  }
  if (json) printOk(io, { removed: name });
  else io.out(`${name} removed (its sessions keep running there)\n`);
  return ExitCode.ok;
}

async function add(client: HostClient, m: HostParams<'machines.add'>, io: CliIo, json: boolean): Promise<number> {
  const r = await client.request('machines.add', m);
  if (!r.ok) {
    printError(io, json, 'badRequest', r.error.message);
    return r.error.code === 'badParams' ? ExitCode.usage : ExitCode.failed;
  }
  if (r.result.notice) io.err(`termio: ${r.result.notice}\n`);
  // The connection was made by the host; wait for its first outcome, so the command says whether it worked.
  const deadline = Date.now() + ADD_WAIT_MS;
  let info = r.result.machine;
  while ((info.state === 'connecting' || info.state === 'reconnecting') && info.retryAt === null && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, ADD_POLL_MS));
    const l = await client.request('machines.list', {});
    const found = l.ok ? l.result.machines.find((x) => x.name === m.name) : undefined;
    if (!found) break;
    info = found;
  }
  if (json) printOk(io, { machine: info });
  else io.out(`${m.name} saved: ${stateLine(info)}\n`);
  return info.state === 'connected' ? ExitCode.ok : ExitCode.failed;
}
