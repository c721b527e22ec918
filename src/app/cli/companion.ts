// `termio companion status|enable|disable|url|revoke`: the phone companion from the command line.
// Each verb asks the session host (started on first need, except status) to change and report
// the companion, so the CLI and the app's Settings → Phone always agree.
import { parseArgs } from 'node:util';
import type { CompanionStatus } from '../../protocol/companion';
import type { PushDeviceInfo } from '../../protocol/push';
import { MAX_COMPANION_PORT, MIN_COMPANION_PORT } from '../../protocol/companion';
import { connectHost } from '../client/hostLauncher';
import { ExitCode, type CliIo } from './cliIo';
import { printJsonError, printOk } from './output';

const HELP = `Usage: termio companion <verb> [options]

A web page for your phone (or another computer's browser): every session's live state, and a
session's terminal to answer it. Off until you enable it; only this computer can reach it
unless you choose --lan. Whoever has the link can see and type into every session: keep it to
yourself, and revoke it if it leaks.

Verbs:
  status [--json]                       whether it is on, where, and how many pages are paired
  enable [--lan | --loopback] [--port N] [--json]
                                        turn it on (--lan: reachable from your local network)
  disable                               turn it off; every page is disconnected
  url [--qr] [--json]                   the pairing link (--qr: also as a QR code to scan)
  revoke                                a new link; every page paired with the old one is
                                        disconnected at once (and every device's push with it)
  devices [--json]                      the phones registered for push ("Notify this phone"):
                                        id, name, since when, how the last push went
  devices remove ID                     stop pushing to that device

Exit codes: 0 ok, 2 bad usage, 4 no host running (status), 1 anything else.
`;

const VERBS = ['status', 'enable', 'disable', 'url', 'revoke'] as const;
type Verb = (typeof VERBS)[number];

interface Options {
  json: boolean;
  qr: boolean;
  network?: 'lan' | 'loopback';
  port?: number;
}

/** Which options each verb takes (the rest are refused as unexpected). */
const VERB_OPTIONS: Record<Verb, readonly string[]> = {
  enable: ['json', 'lan', 'loopback', 'port'],
  url: ['json', 'qr'],
  disable: ['json'],
  revoke: ['json'],
  status: ['json'],
};

function parse(verb: Verb, rest: string[]): Options | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { json: { type: 'boolean' }, qr: { type: 'boolean' }, lan: { type: 'boolean' }, loopback: { type: 'boolean' }, port: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return (err as Error).message;
  }
  const given = Object.keys(values);
  const stray = given.find((k) => !VERB_OPTIONS[verb].includes(k));
  if (stray) return `unexpected argument '--${stray}'`;
  if (values.lan && values.loopback) return '--lan and --loopback: choose one';
  const o: Options = { json: values.json ?? false, qr: values.qr ?? false };
  if (values.lan || values.loopback) o.network = values.lan ? 'lan' : 'loopback';
  if (values.port !== undefined) {
    const n = Number(values.port);
    if (!Number.isInteger(n) || n < MIN_COMPANION_PORT || n > MAX_COMPANION_PORT) {
      return `--port: expected a whole number from ${MIN_COMPANION_PORT} to ${MAX_COMPANION_PORT}, got '${values.port}'`;
    }
    o.port = n;
  }
  return o;
}

function describe(s: CompanionStatus): string {
  if (!s.enabled) return 'companion: off (termio companion enable turns it on)\n';
  const where = s.network === 'lan' ? 'your local network' : 'this computer only';
  if (!s.listening) return `companion: on, but not serving: ${s.error ?? 'unknown reason'}\n`;
  return `companion: on, reachable from ${where}, port ${s.port}, ${s.pages} page${s.pages === 1 ? '' : 's'} connected\n${s.urlWithheld ? `${WITHHELD}\n` : `${s.url}\n`}`;
}

/** The pairing link carries the token: a program in a tab never gets it. */
const WITHHELD =
  'the pairing link is not shown inside a Termio session (it lets a phone control every tab); open it from the app (Settings → Phone) or a terminal outside Termio';

/** `termio companion url`: the pairing link (and its QR code), or why there is none. */
async function printUrl(io: CliIo, s: CompanionStatus, qr: boolean): Promise<number> {
  if (s.urlWithheld) {
    io.err(`termio companion url: ${WITHHELD}\n`);
    return ExitCode.failed;
  }
  if (!s.url) {
    io.err(
      `termio companion url: ${s.enabled ? `not serving: ${s.error ?? 'unknown reason'}` : 'the companion is off; termio companion enable turns it on'}\n`,
    );
    return ExitCode.failed;
  }
  if (qr) (io.outRaw ?? io.out)(await (require('qrcode') as typeof import('qrcode')).toString(s.url, { type: 'terminal', small: true }));
  io.out(`${s.url}\n`);
  return ExitCode.ok;
}

/** One device per line: id, name, since when, push service, the last push. */
function describeDevices(devices: PushDeviceInfo[]): string {
  if (devices.length === 0) return 'no devices: open the page on a phone and tap "Notify this phone"\n';
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  const last = (d: PushDeviceInfo): string => {
    if (!d.last) return 'nothing pushed yet';
    const what = d.last.outcome === 'waiting' ? `waiting until ${day(d.last.retryAt ?? d.last.at)}` : d.last.outcome;
    return `last push ${day(d.last.at)}: ${what}${d.last.status !== null ? ` (${d.last.status})` : ''}${d.last.message && d.last.outcome !== 'sent' ? `, ${d.last.message}` : ''}`;
  };
  return devices.map((d) => `${d.id}  ${d.name}  since ${day(d.createdAt)}  via ${d.service}  ${last(d)}\n`).join('');
}

/** `termio companion devices [--json]` and `termio companion devices remove ID`. */
async function devices(rest: string[], io: CliIo): Promise<number> {
  const json = rest.includes('--json');
  const args = rest.filter((a) => a !== '--json');
  const remove = args[0] === 'remove';
  if ((remove && args.length !== 2) || (!remove && args.length !== 0)) {
    io.err(`termio companion devices: expected 'devices [--json]' or 'devices remove ID', got '${rest.join(' ')}'\n`);
    return ExitCode.usage;
  }
  const client = await connectHost(io.env, { client: 'termio-cli', start: true });
  if ('kind' in client) {
    if (json) printJsonError(io, 'spawnFailed', client.message);
    io.err(`termio companion: ${client.message}\n`);
    return ExitCode.failed;
  }
  try {
    const r = remove ? await client.request('companion.removeDevice', { id: args[1]! }) : await client.request('companion.devices', {});
    if (!r.ok) {
      if (json) printJsonError(io, r.error.code, r.error.message);
      io.err(`termio companion devices: ${r.error.message}\n`);
      return ExitCode.failed;
    }
    if (json) printOk(io, { ...r.result });
    else io.out(remove ? `removed ${args[1]}; nothing more is pushed to it\n` : describeDevices(r.result.devices));
    return ExitCode.ok;
  } finally {
    client.close();
  }
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === 'devices') return devices(rest, io);
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(HELP);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (!(VERBS as readonly string[]).includes(verb)) {
    io.err(`termio companion: unknown verb '${verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  const v = verb as Verb;
  const o = parse(v, rest);
  if (typeof o === 'string') {
    io.err(`termio companion ${v}: ${o}\n`);
    return ExitCode.usage;
  }
  const client = await connectHost(io.env, { client: 'termio-cli', start: v !== 'status' });
  if ('kind' in client) {
    if (o.json) printJsonError(io, client.kind === 'notRunning' ? 'hostNotRunning' : 'spawnFailed', client.message);
    io.err(`termio companion: ${client.message}\n`);
    return client.kind === 'notRunning' ? ExitCode.hostNotRunning : ExitCode.failed;
  }
  try {
    const method = v === 'url' ? 'companion.status' : (`companion.${v}` as const);
    const r = await client.request(method, method === 'companion.enable' ? { network: o.network || undefined, port: o.port || undefined } : {});
    if (!r.ok) {
      if (o.json) printJsonError(io, r.error.code, r.error.message);
      io.err(`termio companion ${v}: ${r.error.message}\n`);
      return ExitCode.failed;
    }
    const s = r.result;
    for (const n of s.notices ?? []) io.err(`termio companion ${v}: ${n}\n`);
    // On but not serving (a port in use, say): a failure, with the status that says why.
    const notServing = (v === 'enable' || v === 'status') && s.enabled && !s.listening;
    if (o.json && notServing) {
      printJsonError(io, 'notServing', `the companion is on but not serving: ${s.error ?? 'unknown reason'}`, { ...s });
    } else if (o.json) {
      printOk(io, { ...s });
    } else if (v === 'url') {
      return await printUrl(io, s, o.qr);
    } else {
      if (v === 'revoke') io.out('the old link no longer works; every page paired with it was disconnected\n');
      io.out(describe(s));
    }
    return notServing ? ExitCode.failed : ExitCode.ok;
  } finally {
    client.close();
  }
}
