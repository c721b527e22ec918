// `termio sessions list|watch|read|send|spawn|run|wait|why|question|answer|next|handled|focus|close|diff|commit|merge|rebase`: the control socket's verbs
// as commands, each with --json and --help; session ids accept a unique prefix. Loads nothing heavy
// (no zod): the round trip of `termio sessions list --json`, process start included, is benchmarked.
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ControlArgs, ControlError, ControlResult, ControlVerb, SessionInfo, WaitResult, WatchEvent } from '../../protocol/control';
import { MAX_WAIT_MS } from '../../protocol/controlFrames';
import { ControlClient, REQUEST_TIMEOUT_MS, type Reply } from '../client/controlClient';
import { ExitCode, type CommandHandler } from './cliIo';
import { printError, printOk } from './output';
import { resumeLostWait } from './waitResume';
import { questionHandlers, questionSpecs } from './sessionsQuestion';
import { queueHandlers, queueSpecs } from './sessionsQueue';
import { clock, listText, shortIds, stateText, tilde, waitSummary, whyReport } from './sessionsText';
import type { Ctx, Options, Parsed, Values, VerbSpec } from './sessionsTypes';
import { commentHandlers, commentSpecs } from './sessionsComments';
import { fanoutHandlers, fanoutSpecs } from './sessionsFanout';
import { worktreeChoice, worktreeDetails, worktreeHandlers, worktreeOptions, worktreeSpecs, worktreeUsage } from './sessionsWorktree';

const common = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const satisfies Options;
const waitOptions = { wait: { type: 'boolean' }, timeout: { type: 'string' } } as const satisfies Options;

const waitDetails =
  '--wait: reply only once the work has settled, printing what the program wrote meanwhile (with --json: {"wait": {…}}).\n' +
  '--timeout S: give up waiting after S seconds (exit 3). Default: no limit.\n' +
  'If the session host is lost meanwhile (a crash, a restart, an update), the wait goes on with the next host.';

const verbs: Record<string, VerbSpec> = {
  list: {
    usage: 'termio sessions list [--json]',
    summary: 'list sessions: id, agent, state and since when, folder, title',
    options: common,
    positionals: [],
  },
  watch: {
    usage: 'termio sessions watch [--json]',
    summary: 'print each session, then one line per status change, until interrupted',
    details:
      'With --json every line is an object: {"schemaVersion":1, "kind":"snapshot"|"added"|"removed"|"state"|"stall"|"childFinished", "session":{…}, "previous"?, "notice"?}.\n' +
      'A "stall" line says a session started (session.stalledSince set) or stopped being stalled.\n' +
      'A "childFinished" line says a child spawned with --notify-parent finished; notice.text is what its parent is told.\nEnds with exit code 4 when the app quits.',
    options: common,
    positionals: [],
  },
  read: {
    usage: 'termio sessions read ID [--lines N] [--viewport] [--transcript] [--json]',
    summary: "print the session's visible screen as text (or its last N non-empty lines), without focusing it",
    details:
      "--viewport prints the rows shown where the session is scrolled back to (what its tab shows) rather than the live screen.\n--transcript prints the agent's transcript file instead (its last N lines with --lines): the path its hooks reported, or its record in the agent's store.",
    options: { ...common, lines: { type: 'string' }, transcript: { type: 'boolean' }, viewport: { type: 'boolean' } },
    positionals: ['ID'],
  },
  send: {
    usage: 'termio sessions send ID TEXT [--enter] [--wait [--timeout S]] [--json]',
    summary: 'type TEXT into the session; --enter then presses Return',
    details: `TEXT is typed as is (quote it). Put -- before a TEXT that starts with "-". With --enter alone, TEXT may be omitted.\n${waitDetails}\nWith --wait, send returns when the turn the message started has ended.`,
    options: { ...common, ...waitOptions, enter: { type: 'boolean' } },
    positionals: ['ID', 'TEXT?'],
  },
  spawn: {
    usage: `termio sessions spawn [--agent ID] [--prompt TEXT] [--cwd DIR] [--machine NAME] ${worktreeUsage} [--bypass] [--title T] [--notify-parent] [--wait [--timeout S]] [--json]`,
    summary: 'start a session and print its id at once',
    details:
      "Without --agent: a login shell. --cwd defaults to the current folder. --bypass adds the agent's permission-bypass flag.\n" +
      '--machine NAME: start it on a saved machine (termio machines); --cwd is then a folder there (default: its home).\n' +
      '--prompt: typed and entered once the agent is ready for input (its hook, title or screen says so), never before.\n' +
      '--notify-parent (from inside a session): when the new session is done, fails, needs an answer or ends, one line saying so\n' +
      '  ("[termio] child … is done; its last line: "…". Read it with: termio sessions read ID") is typed into the calling session once it waits for input.\n' +
      `${waitDetails}\nWith --wait, spawn returns when the prompt's turn has ended (without --prompt: when the agent is ready).\n${worktreeDetails}`,
    options: {
      ...common,
      ...waitOptions,
      ...worktreeOptions,
      agent: { type: 'string' },
      cwd: { type: 'string' },
      machine: { type: 'string' },
      bypass: { type: 'boolean' },
      title: { type: 'string' },
      prompt: { type: 'string' },
      'notify-parent': { type: 'boolean' },
    },
    positionals: [],
  },
  run: {
    usage: `termio sessions run [--cwd DIR] [--machine NAME] ${worktreeUsage} [--title T] [--wait [--timeout S]] [--json] -- CMD [ARGS...]`,
    summary: 'run one command in a new session (no shell); it stays on screen after it exits, with its exit code',
    details: `CMD runs as is, with ARGS as its arguments; for a shell: -- sh -c '…'.\n${waitDetails}\nWith --wait, run returns when the command has exited; its exit code is in the output (wait.session.exited).\n${worktreeDetails}`,
    options: { ...common, ...waitOptions, ...worktreeOptions, cwd: { type: 'string' }, machine: { type: 'string' }, title: { type: 'string' } },
    positionals: ['CMD', 'ARGS...'],
  },
  wait: {
    usage: 'termio sessions wait ID [--until done|idle|attention|exit] [--timeout S] [--json]',
    summary: 'wait until the session reaches a state, then print it and what the program wrote meanwhile',
    details:
      'done (default): not working any more (done or idle). idle: idle. attention: it needs you. exit: its program ended.\n' +
      'Any wait ends when the program exits. Exit codes: 0 reached, 3 timeout, 5 the session needs you (the screen shows the question).\n' +
      'If the session host is lost meanwhile (a crash, a restart, an update), the wait goes on with the next host: a held session keeps running.',
    options: { ...common, until: { type: 'string' }, timeout: { type: 'string' } },
    positionals: ['ID'],
  },
  focus: {
    usage: 'termio sessions focus ID [--json]',
    summary: "bring the session's tab to the front",
    options: common,
    positionals: ['ID'],
  },
  why: {
    usage: 'termio sessions why ID [--json]',
    summary: 'say why the session is in its state: which hook, title or screen rule, and when',
    options: common,
    positionals: ['ID'],
  },
  ...questionSpecs,
  ...queueSpecs,
  ...worktreeSpecs,
  ...commentSpecs,
  ...fanoutSpecs,
};

const footer =
  'ID is a session id or a unique prefix of one. Exit codes: 0 ok, 1 error (the app refused, no such session), 2 bad usage, 3 timeout, 4 Termio not running, 5 the session needs you.';

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
  return [
    `Usage: ${spec.usage}`,
    '',
    spec.summary.replace(/^./, (c) => c.toUpperCase()) + '.',
    ...(spec.details ? ['', spec.details] : []),
    '',
    footer,
    '',
  ].join('\n');
}

function parse(args: string[], spec: VerbSpec): Parsed | string {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: spec.options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = (err as Error).message;
    // node:util's messages name the option; the command itself is ours to add.
    return spec.positionals.some((p) => p.endsWith('...')) && message.includes('Unknown option') ? `${message}; put -- before the command` : message;
  }
  const values: Values = {};
  for (const [k, v] of Object.entries(parsed.values)) if (typeof v === 'string' || typeof v === 'boolean') values[k] = v;
  if (values.help) return { values, positionals: parsed.positionals };
  const rest = spec.positionals.some((p) => p.endsWith('...'));
  const required = spec.positionals.filter((p) => !p.endsWith('?') && !p.endsWith('...')).length;
  if (parsed.positionals.length < required) return `missing ${spec.positionals[parsed.positionals.length]?.replace('?', '')}`;
  if (!rest && parsed.positionals.length > spec.positionals.length) return `unexpected argument '${parsed.positionals[spec.positionals.length]}'`;
  return { values, positionals: parsed.positionals };
}

/** A positive whole number, or the error text. */
function positiveInt(name: string, value: string): number | string {
  return /^\d+$/.test(value) && Number(value) >= 1 ? Number(value) : `--${name} must be a positive whole number, got '${value}'`;
}

/** --timeout S (seconds, fractions allowed) in ms; absent = as long as the app allows. */
function timeoutMs(value: string | boolean | undefined): number | string {
  if (typeof value !== 'string') return MAX_WAIT_MS;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds * 1000 <= MAX_WAIT_MS))
    return `--timeout must be a number of seconds up to ${MAX_WAIT_MS / 1000}, got '${value}'`;
  return Math.round(seconds * 1000);
}

function exitCodeFor(error: ControlError): number {
  if (error.code === 'badRequest') return ExitCode.usage;
  if (error.code === 'internal') return ExitCode.internal;
  return ExitCode.failed;
}

// ---- verbs --------------------------------------------------------------------------------

/** `busy` means the app did not take the request at all, so it is safe to retry; 5 tries over ~0.75 s. */
const BUSY_RETRIES = 5;
const BUSY_BACKOFF_MS = 50;

type Called<V extends ControlVerb> = { ok: true; result: ControlResult<V> } | { ok: false; code: number };

async function call<V extends ControlVerb>(
  ctx: Ctx,
  verb: V,
  args: ControlArgs<V>,
  waitMs = 0,
  resume?: (first: Reply<V>) => Promise<Reply<V>>,
): Promise<Called<V>> {
  // A wait may take as long as the session does: the reply deadline is the wait's, plus the usual margin.
  const deadline = REQUEST_TIMEOUT_MS + waitMs;
  let reply: Reply<V> = await ctx.client.request(verb, args, deadline);
  for (let attempt = 1; !reply.ok && reply.error.code === 'busy' && attempt <= BUSY_RETRIES; attempt++) {
    ctx.client.close();
    await new Promise((r) => setTimeout(r, BUSY_BACKOFF_MS * attempt));
    const next = await ControlClient.connectOrStart(ctx.io.env);
    if (!(next instanceof ControlClient)) {
      printError(ctx.io, ctx.json, 'hostNotRunning', next.message);
      return { ok: false, code: ExitCode.hostNotRunning };
    }
    ctx.client = next;
    reply = await ctx.client.request(verb, args, deadline);
  }
  if (resume) reply = await resume(reply);
  if (reply.ok) return reply;
  printError(ctx.io, ctx.json, reply.lost ? 'connectionLost' : reply.error.code, reply.error.message);
  return { ok: false, code: reply.lost ? ExitCode.hostNotRunning : exitCodeFor(reply.error) };
}

/** How a finished wait ends the command: 0 settled, 3 timeout, 5 needs you, 1 closed or never ready. */
function waitExit(w: WaitResult): number {
  switch (w.outcome) {
    case 'settled':
      return ExitCode.ok;
    case 'timeout':
      return ExitCode.timeout;
    case 'attention':
      return ExitCode.needsYou;
    case 'closed':
    case 'notReady':
      return ExitCode.failed;
  }
}

/** Text mode: what the program wrote goes to stdout (on attention: the screen with its question); the state to stderr. */
function printWait(ctx: Ctx, w: WaitResult, fields: object): number {
  if (ctx.json) printOk(ctx.io, { ...fields, wait: w });
  else {
    const lines = w.outcome === 'attention' ? w.screen : w.lines;
    if (lines.length) ctx.io.out(`${lines.join('\n')}\n`);
    ctx.io.err(`termio: ${waitSummary(w)}\n`);
  }
  return waitExit(w);
}

function cwdOf(ctx: Ctx, flag: string | boolean | undefined): string {
  return typeof flag !== 'string' ? ctx.io.cwd : isAbsolute(flag) ? flag : resolve(ctx.io.cwd, flag);
}

/** Where a spawn or run starts: here, in --cwd or the current folder; on a machine, in --cwd
 *  as given (a folder there) or that machine's home. */
function where(ctx: Ctx, v: Values): { cwd?: string; machine?: string } {
  if (typeof v.machine !== 'string') return { cwd: cwdOf(ctx, v.cwd) };
  return { machine: v.machine, cwd: typeof v.cwd === 'string' ? v.cwd : undefined };
}

/** The session this command runs in, if any: it becomes the parent of what it starts. */
function parentOf(ctx: Ctx): { parent?: string } {
  const id = ctx.io.env.TERMIO_SESSION;
  return id ? { parent: id } : {};
}

type Handler = (p: Parsed, ctx: Ctx) => Promise<number>;

/** A flag's text, if given. */
function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Prints a reply that has nothing to say in text mode beyond the exit code. */
async function plain<V extends ControlVerb>(ctx: Ctx, verb: V, args: ControlArgs<V>): Promise<number> {
  const r = await call(ctx, verb, args);
  if (!r.ok) return r.code;
  if (ctx.json) printOk(ctx.io, r.result);
  return ExitCode.ok;
}

const handlers: Record<string, Handler> = {
  async list(_p, ctx) {
    const r = await call(ctx, 'sessions.list', {});
    if (!r.ok) return r.code;
    if (ctx.json) printOk(ctx.io, r.result);
    else ctx.io.out(listText(r.result.sessions, ctx.io.env));
    return ExitCode.ok;
  },
  watch: (_p, ctx) => watch(ctx),
  async read(p, ctx) {
    const lines = str(p, 'lines');
    const n = lines === undefined ? undefined : positiveInt('lines', lines);
    if (typeof n === 'string') return usageError(ctx, 'read', n);
    const r = await call(ctx, 'sessions.read', {
      id: p.positionals[0] ?? '',
      lines: n,
      transcript: p.values.transcript ? true : undefined,
      viewport: p.values.viewport ? true : undefined,
    });
    if (!r.ok) return r.code;
    if (ctx.json) printOk(ctx.io, r.result);
    else ctx.io.out(r.result.lines.length ? `${r.result.lines.join('\n')}\n` : '');
    return ExitCode.ok;
  },
  async send(p, ctx) {
    const text = p.positionals[1];
    if (text === undefined && !p.values.enter) return usageError(ctx, 'send', 'missing TEXT');
    const wait = waitArg(p.values);
    if (typeof wait === 'string') return usageError(ctx, 'send', wait);
    const r = await call(ctx, 'sessions.send', { id: p.positionals[0] ?? '', text: text ?? '', enter: p.values.enter ? true : undefined });
    if (!r.ok) return r.code;
    const { id, mark } = r.result;
    if (wait.wait) return waitAfter(ctx, { id, until: 'turn', timeoutMs: wait.wait.timeoutMs, since: mark }, { id });
    if (ctx.json) printOk(ctx.io, { id });
    return ExitCode.ok;
  },
  async spawn(p, ctx) {
    const wait = waitArg(p.values);
    if (typeof wait === 'string') return usageError(ctx, 'spawn', wait);
    const [agent, title, prompt, worktree] = [str(p, 'agent'), str(p, 'title'), str(p, 'prompt'), worktreeChoice(p)];
    if (prompt === '') return usageError(ctx, 'spawn', '--prompt needs some text');
    if (typeof worktree === 'string') return usageError(ctx, 'spawn', worktree);
    const notify = p.values['notify-parent'] === true;
    if (notify && !parentOf(ctx).parent) return usageError(ctx, 'spawn', '--notify-parent works only from inside a Termio session (TERMIO_SESSION is not set)');
    const args = {
      ...where(ctx, p.values),
      ...worktree,
      agent,
      bypass: p.values.bypass ? true : undefined,
      title,
      prompt,
      ...parentOf(ctx),
      notifyParent: notify ? true : undefined,
    };
    const r = await call(ctx, 'sessions.spawn', args);
    if (!r.ok) return r.code;
    if (!wait.wait) return started(ctx, r.result);
    const { id, session } = r.result;
    return waitAfter(ctx, { id, until: prompt !== undefined ? 'turn' : 'ready', timeoutMs: wait.wait.timeoutMs, since: 'start' }, { id, session });
  },
  async run(p, ctx) {
    const wait = waitArg(p.values);
    if (typeof wait === 'string') return usageError(ctx, 'run', wait);
    const [title, worktree] = [str(p, 'title'), worktreeChoice(p)];
    if (typeof worktree === 'string') return usageError(ctx, 'run', worktree);
    const args = { argv: p.positionals, ...where(ctx, p.values), ...worktree, title, ...parentOf(ctx) };
    const r = await call(ctx, 'sessions.run', args);
    if (!r.ok) return r.code;
    if (!wait.wait) return started(ctx, r.result);
    const { id, session } = r.result;
    return waitAfter(ctx, { id, until: 'exit', timeoutMs: wait.wait.timeoutMs, since: 'start' }, { id, session });
  },
  async wait(p, ctx) {
    const until = str(p, 'until') ?? 'done';
    if (until !== 'done' && until !== 'idle' && until !== 'attention' && until !== 'exit')
      return usageError(ctx, 'wait', `--until must be done, idle, attention or exit, got '${until}'`);
    const ms = timeoutMs(p.values.timeout);
    if (typeof ms === 'string') return usageError(ctx, 'wait', ms);
    const r = await waitOn(ctx, { id: p.positionals[0] ?? '', until, timeoutMs: ms });
    if (!r.ok) return r.code;
    if (!ctx.json) return printWait(ctx, r.result, {});
    printOk(ctx.io, r.result);
    return waitExit(r.result);
  },
  async why(p, ctx) {
    const r = await call(ctx, 'sessions.why', { id: p.positionals[0] ?? '' });
    if (!r.ok) return r.code;
    if (ctx.json) printOk(ctx.io, r.result);
    else ctx.io.out(whyReport(r.result));
    return ExitCode.ok;
  },
  ...questionHandlers((c, verb, args) => call(c as Ctx, verb, args)),
  ...queueHandlers((c, verb, args) => call(c as Ctx, verb, args)),
  focus: (p, ctx) => plain(ctx, 'sessions.focus', { id: p.positionals[0] ?? '' }),
  ...worktreeHandlers({ call: (ctx, verb, args) => call(ctx, verb, args), usageError }),
  ...commentHandlers({ call: (ctx, verb, args) => call(ctx, verb, args), usageError }),
  ...fanoutHandlers({ call: (ctx, verb, args, waitMs) => call(ctx, verb, args, waitMs), usageError, parent: parentOf }),
};

/** spawn and run without --wait: the id at once. */
function started(ctx: Ctx, result: { id: string; session: SessionInfo }): number {
  if (ctx.json) printOk(ctx.io, result);
  else ctx.io.out(`${result.id}\n`);
  return ExitCode.ok;
}

/**
 * A wait, asked again of the next host each time the connection is lost (the next host adopts
 * the session, and the wait goes on there with the time it had left).
 */
function waitOn(ctx: Ctx, args: ControlArgs<'sessions.wait'>): Promise<Called<'sessions.wait'>> {
  const startedAt = Date.now();
  return call(ctx, 'sessions.wait', args, args.timeoutMs, (first) => resumeLostWait(ctx, args, first, startedAt));
}

/**
 * `--wait` on send, spawn and run: the work is started by one request and waited on by another,
 * so that the session's id is known here before the wait begins and a host lost meanwhile loses
 * nothing (see waitOn); `since` makes the wait's lines begin where the work's output did.
 */
async function waitAfter(ctx: Ctx, args: ControlArgs<'sessions.wait'>, fields: object): Promise<number> {
  const r = await waitOn(ctx, args);
  return r.ok ? printWait(ctx, r.result, fields) : r.code;
}

function waitArg(v: Values): { wait?: { timeoutMs: number } } | string {
  if (!v.wait) return v.timeout !== undefined ? '--timeout goes with --wait' : {};
  const ms = timeoutMs(v.timeout);
  return typeof ms === 'string' ? ms : { wait: { timeoutMs: ms } };
}

function usageError(ctx: Ctx, verb: string, message: string): number {
  printError(ctx.io, ctx.json, 'usage', `sessions ${verb}: ${message}`);
  ctx.io.err(`\n${verbHelp(verbs[verb] as VerbSpec)}`);
  return ExitCode.usage;
}

function watch(ctx: Ctx): Promise<number> {
  const { io, json, client } = ctx;
  let short = new Map<string, string>();
  const known = new Map<string, SessionInfo>();
  const idOf = (s: SessionInfo) => short.get(s.id) ?? s.id.slice(0, 8);
  const describe = (s: SessionInfo) => `${s.agentId ?? 'shell'}  ${tilde(s.cwd, io.env)}${s.title ? `  ${s.title}` : ''}`;
  const print = (e: WatchEvent | { kind: 'snapshot'; session: SessionInfo }) => {
    if (json) {
      printOk(io, e);
      return;
    }
    const s = e.session;
    if (e.kind === 'snapshot') io.out(`${idOf(s)}  ${stateText(s).padEnd(9)}  ${describe(s)}\n`);
    else if (e.kind === 'added') io.out(`${clock()}  + ${idOf(s)}  ${s.state.padEnd(9)}  ${describe(s)}\n`);
    else if (e.kind === 'removed') io.out(`${clock()}  - ${idOf(s)}  closed\n`);
    else if (e.kind === 'childFinished') io.out(`${clock()}  ${idOf(s)}  finished: ${e.notice?.text ?? ''}\n`);
    else if (e.kind === 'stall')
      io.out(
        `${clock()}  ${idOf(s)}  ${s.stalledSince ? `stalled: no output since ${new Date(s.stalledSince).toTimeString().slice(0, 8)}` : 'no longer stalled'}\n`,
      );
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
      printError(io, json, 'connectionLost', why);
      resolveExit(ExitCode.hostNotRunning);
    });
    void client.request('sessions.watch', {}).then((reply) => {
      if (!reply.ok) {
        printError(io, json, reply.lost ? 'connectionLost' : reply.error.code, reply.error.message);
        resolveExit(reply.lost ? ExitCode.hostNotRunning : exitCodeFor(reply.error));
        return;
      }
      const sessions = reply.result.sessions;
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
  const parsed = parse(rest, spec);
  const json = rest.includes('--json');
  if (typeof parsed === 'string') {
    printError(io, json, 'usage', `sessions ${verb}: ${parsed}`);
    io.err(`\n${verbHelp(spec)}`);
    return ExitCode.usage;
  }
  if (parsed.values.help) {
    io.out(verbHelp(spec));
    return ExitCode.ok;
  }
  const client = await ControlClient.connectOrStart(io.env);
  if (!(client instanceof ControlClient)) {
    printError(io, json, 'hostNotRunning', client.message);
    return ExitCode.hostNotRunning;
  }
  const ctx: Ctx = { io, json: parsed.values.json === true, client };
  try {
    const handler = handlers[verb];
    if (!handler) throw new Error(`sessions: no handler for verb '${verb}'`);
    return await handler(parsed, ctx);
  } finally {
    ctx.client.close();
  }
};
