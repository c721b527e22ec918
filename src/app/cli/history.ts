// `termio history search|resume|status` and `termio usage`: every agent's past conversations, as
// the host indexed them from the agents' own transcript files (docs/history.md): find one by its
// words, open a tab that resumes it exactly, see how far indexing is, and what it all cost.
import { parseArgs } from 'node:util';
import type { HistoryResult, UsageTokens } from '../../protocol/controlHistory';
import { askHost } from './askHost';
import { ExitCode, type CliIo, type CommandHandler } from './cliIo';
import { printError, printOk } from './output';
import { table, tilde } from './sessionsText';

const HELP = `Usage: termio history <verb> [options] [--json]

Verbs:
  search QUERY [--agent A] [--machine M] [--since DATE] [--limit N]
                     conversations whose turns hold every word of QUERY ("word*" matches any
                     ending), best first: agent, folder, machine, date, and the matching lines
                     with the hits in «»; every connected machine is asked unless --machine
  resume ID [--agent A] [--machine M]
                     open a tab that resumes conversation ID (or a unique prefix) in its folder
                     through the agent's resume; one already open in a tab is brought forward
  status [--machine M]
                     how far the index is: files read, files waiting, conversations

Also: termio usage [--by agent|day|folder|model] [--agent A] [--session ID] [--since DATE] [--machine M] [--json]
Exit codes: 0 ok, 1 error, 2 bad usage, 4 Termio not running.
`;

const USAGE_HELP = `Usage: termio usage [--by agent|day|folder|model] [--agent A] [--session ID] [--since DATE] [--machine M] [--json]

Tokens in, out, cache read and cache write of every indexed conversation, summed per agent (the
default), day, folder or model, with an estimated cost from the price table (docs/history.md);
a model the table does not have shows its tokens and "price unknown". --session ID counts only
the conversation that session (termio sessions list) is bound to: what its tab cost so far.
Exit codes: 0 ok, 1 error, 2 bad usage, 4 Termio not running.
`;

function marked(line: { text: string; hits: { start: number; length: number }[] }): string {
  let out = '';
  let at = 0;
  for (const h of line.hits) {
    out += `${line.text.slice(at, h.start)}«${line.text.slice(h.start, h.start + h.length)}»`;
    at = h.start + h.length;
  }
  return out + line.text.slice(at);
}

function searchText(results: HistoryResult[], env: NodeJS.ProcessEnv): string {
  if (results.length === 0) return 'No conversation matches.\n';
  return results
    .map((r) => {
      const when = r.lastActivity ? r.lastActivity.slice(0, 16).replace('T', ' ') : 'undated';
      const head = `${r.agent}  ${r.cwd ? tilde(r.cwd, env) : '(folder unknown)'}  ${r.machine ?? 'this machine'}  ${when}  ${r.conversation ?? '(no id)'}`;
      const lines = r.lines.map((l) => `    ${l.role === 'user' ? '>' : '<'} ${marked(l)}`);
      return [head, `    ${r.title ?? ''}`, ...lines].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

const options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  agent: { type: 'string' },
  machine: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  by: { type: 'string' },
  session: { type: 'string' },
} as const;

type Values = { agent?: string; machine?: string; since?: string; limit?: string; by?: string; session?: string; json?: boolean };

function filters(v: Values): { agent?: string; machine?: string } {
  return { agent: v.agent || undefined, machine: v.machine || undefined };
}

async function runVerb(verb: string, rest: string[], v: Values, io: CliIo, json: boolean): Promise<number | string> {
  if (verb === 'search') {
    if (rest.length === 0) return 'search: missing QUERY';
    const limit = v.limit === undefined ? undefined : Number(v.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) return `--limit: expected a positive whole number, got '${v.limit}'`;
    const r = await askHost(io, json, 'history.search', {
      query: rest.join(' '),
      ...filters(v),
      since: v.since || undefined,
      limit: limit || undefined,
    });
    if (!r.ok) return r.code;
    if (json) printOk(io, r.result);
    else {
      io.out(searchText(r.result.results, io.env));
      if (r.result.progress.indexing) io.err(`termio: still indexing (${r.result.progress.queued} files waiting): some conversations may be missing\n`);
      if (r.result.unreachable?.length) io.err(`termio: not asked (not reachable): ${r.result.unreachable.join(', ')}\n`);
    }
    return ExitCode.ok;
  }
  if (verb === 'resume') {
    if (rest.length !== 1) return rest.length === 0 ? 'resume: missing conversation ID' : `unexpected argument '${rest[1]}'`;
    const r = await askHost(io, json, 'history.resume', { conversation: rest[0]!, ...filters(v) });
    if (!r.ok) return r.code;
    if (json) printOk(io, { id: r.result.id, opened: r.result.opened, session: r.result.session });
    else io.out(r.result.opened ? `${r.result.id}\n` : `already open in session ${r.result.id} (brought to the front)\n`);
    return ExitCode.ok;
  }
  if (verb !== 'status') return `unknown verb '${verb}'`;
  const r = await askHost(io, json, 'history.status', v.machine ? { machine: v.machine } : {});
  if (!r.ok) return r.code;
  const p = r.result;
  if (json) printOk(io, p);
  else
    io.out(
      `${p.conversations} conversations in ${p.files} files; ${p.indexing ? `indexing, ${p.queued} files waiting` : p.scanned ? 'up to date' : 'walking the stores'}\n`,
    );
  return ExitCode.ok;
}

function parse(args: string[], io: CliIo, help: string, name: string): { values: Values & { help?: boolean }; positionals: string[] } | null {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`termio ${name}: ${(err as Error).message}\n\n${help}`);
    return null;
  }
}

export const run: CommandHandler = async (args, io) => {
  const parsed = parse(args, io, HELP, 'history');
  if (!parsed) return ExitCode.usage;
  const { values, positionals } = parsed;
  const [verb, ...rest] = positionals;
  if (values.help || verb === 'help') {
    io.out(HELP);
    return ExitCode.ok;
  }
  const json = values.json === true;
  const code =
    verb === undefined
      ? 'missing verb'
      : values.by !== undefined || values.session !== undefined
        ? `--${values.by !== undefined ? 'by' : 'session'} goes with termio usage`
        : await runVerb(verb, rest, values, io, json);
  if (typeof code === 'number') return code;
  printError(io, json, 'usage', `history ${code}`);
  io.err(`\n${HELP}`);
  return ExitCode.usage;
};

function money(t: UsageTokens): string {
  const cost = t.cost > 0 || t.unpriced.length === 0 ? `$${t.cost.toFixed(2)}` : '';
  const unknown = t.unpriced.length ? `price unknown: ${t.unpriced.join(', ')}` : '';
  return [cost, unknown].filter(Boolean).join(' + ');
}

export const runUsage: CommandHandler = async (args, io) => {
  const parsed = parse(args, io, USAGE_HELP, 'usage');
  if (!parsed) return ExitCode.usage;
  const { values, positionals } = parsed;
  if (values.help) return (io.out(USAGE_HELP), ExitCode.ok);
  const json = values.json === true;
  const by = values.by ?? 'agent';
  const bad = positionals.length
    ? `unexpected argument '${positionals[0]}'`
    : !['agent', 'day', 'folder', 'model'].includes(by)
      ? `--by: expected agent, day, folder or model, got '${by}'`
      : null;
  if (bad) {
    printError(io, json, 'usage', `usage ${bad}`);
    return (io.err(`\n${USAGE_HELP}`), ExitCode.usage);
  }
  const r = await askHost(io, json, 'usage', { by: by as 'agent', ...filters(values), since: values.since || undefined, session: values.session || undefined });
  if (!r.ok) return r.code;
  if (json) return (printOk(io, r.result), ExitCode.ok);
  const n = (x: number) => x.toLocaleString('en-US');
  const row = (key: string, t: UsageTokens) => [
    key === 'unknown' || by !== 'folder' ? key : tilde(key, io.env),
    n(t.input),
    n(t.output),
    n(t.cacheRead),
    n(t.cacheWrite),
    money(t),
  ];
  const rows = [
    [by.toUpperCase(), 'IN', 'OUT', 'CACHE READ', 'CACHE WRITE', 'COST (est.)'],
    ...r.result.rows.map((x) => row(x.key, x)),
    row('total', r.result.total),
  ];
  io.out(
    `${table(rows)}Prices of ${r.result.prices.date}${r.result.prices.overridden.length ? `, with yours for ${r.result.prices.overridden.join(', ')}` : ''}.\n`,
  );
  return ExitCode.ok;
};
