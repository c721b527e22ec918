// `termio sessions list|watch|read|send|spawn|focus|close`: the control socket's verbs as commands,
// each with --json and --help; session ids accept a unique prefix. Loads nothing heavy (no zod):
// the round trip of `termio sessions list --json`, process start included, is benchmarked.
import { isAbsolute, resolve } from 'node:path';
import type { ControlArgs, ControlError, ControlVerb, SessionInfo, WatchEvent } from '../../protocol/control';
import { ControlClient, type Reply } from './controlClient';
import { ExitCode, type CliIo, type CommandHandler } from './main';
import { shortenHome } from '../../protocol/homePath';
import { formatDuration } from '../host/sidebarModel';

type FlagKind = 'bool' | 'string' | 'int';

interface VerbSpec {
  usage: string;
  summary: string;
  details?: string;
  flags: Record<string, FlagKind>;
  /** Names of positional arguments; a trailing '?' marks an optional one. */
  positionals: string[];
}

const jsonFlag = { json: 'bool' } as const;

const verbs: Record<string, VerbSpec> = {
  list: {
    usage: 'termio sessions list [--json]',
    summary: 'list sessions: id, agent, state and since when, folder, title',
    flags: jsonFlag,
    positionals: [],
  },
  watch: {
    usage: 'termio sessions watch [--json]',
    summary: 'print each session, then one line per status change, until interrupted',
    details: 'With --json every line is an object: {"kind":"snapshot"|"added"|"removed"|"state", "session":{…}, "previous"?}.\nEnds with exit code 4 when the app quits.',
    flags: jsonFlag,
    positionals: [],
  },
  read: {
    usage: 'termio sessions read ID [--lines N] [--transcript] [--json]',
    summary: "print the session's visible screen as text (or its last N non-empty lines), without focusing it",
    details: "--transcript prints the agent's transcript file instead (its last N lines with --lines): the path its hooks reported, or its record in the agent's store.",
    flags: { ...jsonFlag, lines: 'int', transcript: 'bool' },
    positionals: ['ID'],
  },
  send: {
    usage: 'termio sessions send ID TEXT [--enter] [--json]',
    summary: 'type TEXT into the session; --enter then presses Return',
    details: 'TEXT is typed as is (quote it). Put -- before a TEXT that starts with "-". With --enter alone, TEXT may be omitted.',
    flags: { ...jsonFlag, enter: 'bool' },
    positionals: ['ID', 'TEXT?'],
  },
  spawn: {
    usage: 'termio sessions spawn [--agent ID] [--cwd DIR] [--bypass] [--title T] [--json]',
    summary: 'start a session and print its id at once',
    details: 'Without --agent: a login shell. --cwd defaults to the current folder. --bypass adds the agent\'s permission-bypass flag.',
    flags: { ...jsonFlag, agent: 'string', cwd: 'string', bypass: 'bool', title: 'string' },
    positionals: [],
  },
  focus: {
    usage: 'termio sessions focus ID [--json]',
    summary: "bring the session's tab to the front",
    flags: jsonFlag,
    positionals: ['ID'],
  },
  why: {
    usage: 'termio sessions why ID [--json]',
    summary: 'say why the session is in its state: which hook, title or screen rule, and when',
    flags: jsonFlag,
    positionals: ['ID'],
  },
  close: {
    usage: 'termio sessions close ID [--json]',
    summary: 'close the session (its program is ended)',
    flags: jsonFlag,
    positionals: ['ID'],
  },
};

const footer = 'ID is a session id or a unique prefix of one. Exit codes: 0 ok, 1 the app refused, 2 bad usage, 3 no such session (or ambiguous prefix), 4 app not running.';

function groupUsage(): string {
  return [
    'Usage: termio sessions <verb> [options]',
    '',
    'Verbs:',
    ...Object.entries(verbs).map(([name, v]) => `  ${name.padEnd(7)} ${v.summary}`),
    '',
    'Every verb takes --json (machine-readable output) and --help.',
    footer,
    '',
  ].join('\n');
}

function verbHelp(spec: VerbSpec): string {
  return [`Usage: ${spec.usage}`, '', spec.summary.replace(/^./, (c) => c.toUpperCase()) + '.', ...(spec.details ? ['', spec.details] : []), '', footer, ''].join('\n');
}

type Parsed = { flags: Record<string, string | number | boolean>; positionals: string[]; help: boolean };

function parseArgs(args: string[], spec: VerbSpec): Parsed | string {
  const flags: Parsed['flags'] = {};
  const positionals: string[] = [];
  let help = false;
  let onlyPositionals = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (onlyPositionals || !arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPositionals = true;
      continue;
    }
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = arg.startsWith('--') ? spec.flags[name] : undefined;
    if (!kind) return `unknown option '${arg}'`;
    if (kind === 'bool') {
      if (eq !== -1) return `--${name} takes no value`;
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else value = args[++i];
    if (value === undefined) return `--${name} needs a value`;
    if (kind === 'int') {
      if (!/^\d+$/.test(value) || Number(value) < 1) return `--${name} must be a positive whole number, got '${value}'`;
      flags[name] = Number(value);
    } else {
      flags[name] = value;
    }
  }
  if (help) return { flags, positionals, help };
  const required = spec.positionals.filter((p) => !p.endsWith('?')).length;
  if (positionals.length < required) return `missing ${spec.positionals[positionals.length]?.replace('?', '')}`;
  if (positionals.length > spec.positionals.length) return `unexpected argument '${positionals[spec.positionals.length]}'`;
  return { flags, positionals, help };
}

function exitCodeFor(error: ControlError): number {
  switch (error.code) {
    case 'noSuchSession':
    case 'ambiguousSession':
      return ExitCode.noSuchSession;
    case 'badRequest':
      return ExitCode.usage;
    case 'internal':
      return ExitCode.internal;
    default:
      return ExitCode.failed;
  }
}

// ---- text output ---------------------------------------------------------------------------

/** The shortest prefix (at least 8 characters, like git) that tells each id apart from the others. */
function shortIds(ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    let n = Math.min(8, id.length);
    while (n < id.length && ids.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n++;
    out.set(id, id.slice(0, n));
  }
  return out;
}

function ago(iso: string, now: number): string {
  return formatDuration(now - Date.parse(iso));
}

function tilde(path: string, env: NodeJS.ProcessEnv): string {
  return env.HOME ? shortenHome(path, env.HOME) : path;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ')).join('\n') + '\n';
}

function listText(sessions: SessionInfo[], env: NodeJS.ProcessEnv): string {
  if (sessions.length === 0) return 'No sessions.\n';
  const short = shortIds(sessions.map((s) => s.id));
  const now = Date.now();
  const rows = [['ID', 'AGENT', 'STATE', 'SINCE', 'CWD', 'TITLE']];
  for (const s of sessions) {
    const state = s.exited ? `${s.state} (exited ${s.exited.exitCode})` : s.state;
    rows.push([short.get(s.id) ?? s.id, s.agentId ?? 'shell', state, ago(s.stateSince, now), tilde(s.cwd, env), s.title]);
  }
  return table(rows);
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

// ---- verbs --------------------------------------------------------------------------------

interface Ctx {
  io: CliIo;
  json: boolean;
  client: ControlClient;
}

/** `busy` means the app did not take the request at all, so it is safe to retry; 5 tries over ~0.75 s. */
const BUSY_RETRIES = 5;
const BUSY_BACKOFF_MS = 50;

async function call<V extends ControlVerb>(ctx: Ctx, verb: V, args: ControlArgs<V>): Promise<{ ok: true; result: unknown } | { ok: false; code: number }> {
  let reply: Reply = await ctx.client.request(verb, args);
  for (let attempt = 1; !reply.ok && reply.error.code === 'busy' && attempt <= BUSY_RETRIES; attempt++) {
    ctx.client.close();
    await new Promise((r) => setTimeout(r, BUSY_BACKOFF_MS * attempt));
    const next = await ControlClient.connect(ctx.io.env);
    if (!(next instanceof ControlClient)) {
      ctx.io.err(`termio: ${next.message}\n`);
      return { ok: false, code: ExitCode.appNotRunning };
    }
    ctx.client = next;
    reply = await ctx.client.request(verb, args);
  }
  if (reply.ok) return reply;
  ctx.io.err(`termio: ${reply.error.message}\n`);
  return { ok: false, code: reply.lost ? ExitCode.appNotRunning : exitCodeFor(reply.error) };
}

function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value)}\n`);
}

async function runVerb(name: string, p: Parsed, ctx: Ctx): Promise<number> {
  const { io, json } = ctx;
  const [first, second] = p.positionals as [string, string | undefined];
  switch (name) {
    case 'list': {
      const r = await call(ctx, 'sessions.list', {});
      if (!r.ok) return r.code;
      const sessions = (r.result as { sessions: SessionInfo[] }).sessions;
      io.out(json ? `${JSON.stringify(sessions)}\n` : listText(sessions, io.env));
      return ExitCode.ok;
    }
    case 'watch':
      return watch(ctx);
    case 'read': {
      const r = await call(ctx, 'sessions.read', { id: first, ...(p.flags.lines ? { lines: p.flags.lines as number } : {}), ...(p.flags.transcript ? { transcript: true } : {}) });
      if (!r.ok) return r.code;
      if (json) printJson(io, r.result);
      else {
        const lines = (r.result as { lines: string[] }).lines;
        io.out(lines.length ? `${lines.join('\n')}\n` : '');
      }
      return ExitCode.ok;
    }
    case 'send': {
      if (second === undefined && !p.flags.enter) {
        io.err(`termio: missing TEXT\n\n${verbHelp(verbs.send as VerbSpec)}`);
        return ExitCode.usage;
      }
      const r = await call(ctx, 'sessions.send', { id: first, text: second ?? '', ...(p.flags.enter ? { enter: true } : {}) });
      if (!r.ok) return r.code;
      if (json) printJson(io, r.result);
      return ExitCode.ok;
    }
    case 'spawn': {
      const cwdFlag = p.flags.cwd as string | undefined;
      const cwd = cwdFlag === undefined ? io.cwd : isAbsolute(cwdFlag) ? cwdFlag : resolve(io.cwd, cwdFlag);
      const r = await call(ctx, 'sessions.spawn', {
        cwd,
        ...(p.flags.agent !== undefined ? { agent: p.flags.agent as string } : {}),
        ...(p.flags.bypass ? { bypass: true } : {}),
        ...(p.flags.title !== undefined ? { title: p.flags.title as string } : {}),
      });
      if (!r.ok) return r.code;
      if (json) printJson(io, r.result);
      else io.out(`${(r.result as { id: string }).id}\n`);
      return ExitCode.ok;
    }
    case 'why': {
      const r = await call(ctx, 'sessions.why', { id: first });
      if (!r.ok) return r.code;
      const w = r.result as { state: string; since: string; channel: string; rule?: string; event?: string; at: string; health: string[]; tool?: string };
      if (json) printJson(io, w);
      else {
        const what = w.rule !== undefined ? `rule /${w.rule}/` : (w.event ?? '');
        const tool = w.tool !== undefined ? ` — waiting on ${w.tool}` : '';
        io.out(`${w.state} since ${w.since} — ${w.channel}${what ? ` ${what}` : ''} at ${w.at}${tool}\n${w.health.map((h) => `  ! ${h}\n`).join('')}`);
      }
      return ExitCode.ok;
    }
    case 'focus':
    case 'close': {
      const r = await call(ctx, name === 'focus' ? 'sessions.focus' : 'sessions.close', { id: first });
      if (!r.ok) return r.code;
      if (json) printJson(io, r.result);
      return ExitCode.ok;
    }
  }
  throw new Error(`sessions: no handler for verb '${name}'`);
}

function watch(ctx: Ctx): Promise<number> {
  const { io, json, client } = ctx;
  let short = new Map<string, string>();
  const known = new Map<string, SessionInfo>();
  const idOf = (s: SessionInfo) => short.get(s.id) ?? s.id.slice(0, 8);
  const describe = (s: SessionInfo) => `${s.agentId ?? 'shell'}  ${tilde(s.cwd, io.env)}${s.title ? `  ${s.title}` : ''}`;
  const print = (e: WatchEvent | { kind: 'snapshot'; session: SessionInfo }) => {
    if (json) {
      printJson(io, e);
      return;
    }
    const s = e.session;
    if (e.kind === 'snapshot') io.out(`${idOf(s)}  ${s.state.padEnd(9)}  ${describe(s)}\n`);
    else if (e.kind === 'added') io.out(`${clock()}  + ${idOf(s)}  ${s.state.padEnd(9)}  ${describe(s)}\n`);
    else if (e.kind === 'removed') io.out(`${clock()}  - ${idOf(s)}  closed\n`);
    else io.out(`${clock()}  ${idOf(s)}  ${e.previous ?? '?'} → ${s.state}${s.stateWhy ? `  (${s.stateWhy})` : ''}\n`);
  };
  return new Promise((resolveExit) => {
    // `termio sessions watch | head -1`: the reader went away, which ends the watch, not an error.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') resolveExit(ExitCode.ok);
    });
    client.onEvent((e) => {
      if (e.kind === 'removed') known.delete(e.session.id);
      else known.set(e.session.id, e.session);
      short = shortIds([...known.keys(), e.session.id]);
      print(e);
    });
    client.onClose((why) => {
      io.err(`termio: ${why}\n`);
      resolveExit(ExitCode.appNotRunning);
    });
    void client.request('sessions.watch', {}).then((reply) => {
      if (!reply.ok) {
        io.err(`termio: ${reply.error.message}\n`);
        resolveExit(reply.lost ? ExitCode.appNotRunning : exitCodeFor(reply.error));
        return;
      }
      const sessions = (reply.result as { sessions: SessionInfo[] }).sessions;
      for (const s of sessions) known.set(s.id, s);
      short = shortIds([...known.keys()]);
      for (const s of sessions) print({ kind: 'snapshot', session: s });
    });
  });
}

export const run: CommandHandler = async (args, io) => {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(groupUsage());
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const spec = Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
  if (!spec) {
    io.err(`termio sessions: unknown verb '${verb}'\n\n${groupUsage()}`);
    return ExitCode.usage;
  }
  const parsed = parseArgs(rest, spec);
  if (typeof parsed === 'string') {
    io.err(`termio sessions ${verb}: ${parsed}\n\n${verbHelp(spec)}`);
    return ExitCode.usage;
  }
  if (parsed.help) {
    io.out(verbHelp(spec));
    return ExitCode.ok;
  }
  const client = await ControlClient.connect(io.env);
  if (!(client instanceof ControlClient)) {
    io.err(`termio: ${client.message}\n`);
    return ExitCode.appNotRunning;
  }
  const ctx: Ctx = { io, json: parsed.flags.json === true, client };
  try {
    return await runVerb(verb, parsed, ctx);
  } finally {
    ctx.client.close();
  }
};
