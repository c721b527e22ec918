// `termio hooks install|uninstall|status [--agent ID] [--json]`: puts Termio's status hooks into
// (or takes them out of) each agent's own config, for every manifest that declares hooks, and the
// Termio skill into the skills folder of each that names one. The session host makes the change
// when one runs (hooks.apply), so it is the one writer of these files; with none running the
// command writes them itself (localWriter.ts) and starts no host.
import { parseArgs } from 'node:util';
import type { AgentHookResult } from '../services/hookResult';
import type { SilentRelease } from '../services/hookSilence';
import type { SkillResult } from '../services/skillInstaller';
import type { McpResult } from '../services/mcpInstaller';
import { ExitCode, type CliIo } from './cliIo';
import { applyHooks } from './localWriter';
import { printOk } from './output';
import { shortenHome } from '../../protocol/homePath';

const HELP = `Usage: termio hooks install|uninstall|status [--agent ID] [--json]

Live agent status: installs Termio's reporter into each agent's own hook configuration
(e.g. ~/.claude/settings.json), removes exactly those entries again, or shows where they are.
The entries run $TERMIO_HOME/bin/termio-hook, a launcher Termio keeps pointing at its reporter;
status also repairs entries that run anything else (a moved checkout, an older install), and
names any release of an agent whose hooks ran in a session without one reaching Termio.
Your own entries, comments and formatting are kept byte for byte; a config that does not
parse is reported and left alone; the original is backed up under $TERMIO_HOME/backups/hooks.
With them goes the Termio skill (how an agent drives other sessions), into the agent's skills
folder as termio/SKILL.md (e.g. ~/.claude/skills/termio/SKILL.md); a file of yours there stays.
And Termio's MCP server (termio mcp) is registered as "termio" in the agent's own MCP config where
its manifest names one (e.g. ~/.claude.json mcpServers, ~/.codex/config.toml [mcp_servers.termio]).

Options:
  --agent ID   only this agent (default: every agent whose manifest declares hooks)
  --json       print the results as JSON
`;

function describe(r: AgentHookResult, home: string, silent: SilentRelease | undefined): string {
  const file = shortenHome(r.file, home);
  const parts = [`${r.agentId.padEnd(10)} ${r.state.padEnd(10)} ${file}`];
  if (r.action !== 'none') parts.push(`(${r.action})`);
  if (r.state === 'partial') parts.push(`missing: ${r.missing.join(', ')}`);
  let line = parts.join('  ');
  if (r.error) line += `\n  error: ${r.error}`;
  if (r.note && r.state !== 'absent') line += `\n  note: ${r.note}`;
  if (r.backup) line += `\n  backup: ${r.backup}`;
  if (silent)
    line += `\n  not reporting: ${silent.release} ran with these hooks and none reached Termio (last at ${silent.at}); its status comes from its title and screen`;
  return line;
}

function describeSkill(r: SkillResult, home: string): string {
  const file = shortenHome(r.file, home);
  const what = r.state === 'foreign' ? 'yours, left as it is' : r.state;
  return `${r.agentId.padEnd(10)} skill ${what}  ${file}${r.action !== 'none' ? `  (${r.action})` : ''}${r.error ? `\n  error: ${r.error}` : ''}`;
}

/** One line per agent's MCP registration (shared with `termio mcp status`). */
export function describeMcp(r: McpResult, home: string): string {
  const what = r.state === 'stale' ? 'stale (registered to run another termio; install rewrites it)' : r.state;
  return `${r.agentId.padEnd(10)} mcp ${what}  ${shortenHome(r.file, home)}${r.action !== 'none' ? `  (${r.action})` : ''}${r.backup ? `\n  backup: ${r.backup}` : ''}${r.error ? `\n  error: ${r.error}` : ''}`;
}

type Verb = 'install' | 'uninstall' | 'status';

/** The verb and options, or the exit code after help or a usage error was printed. */
function parseHooksArgs(args: string[], io: CliIo): { verb: Verb; agentId: string | undefined; json: boolean } | number {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(HELP);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (verb !== 'install' && verb !== 'uninstall' && verb !== 'status') {
    io.err(`termio hooks: unknown verb '${verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  try {
    const { values } = parseArgs({ args: rest, options: { agent: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false });
    return { verb, agentId: values.agent, json: values.json === true };
  } catch (err) {
    io.err(`termio hooks: ${(err as Error).message}\n\n${HELP}`);
    return ExitCode.usage;
  }
}

/** Prints a refusal the host or the local fallback gave; a usage error for an agent that is not there. */
function refused(io: CliIo, code: string, message: string): number {
  io.err(`termio hooks: ${message}\n`);
  return code === 'noSuchAgent' || code === 'badRequest' ? ExitCode.usage : ExitCode.failed;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseHooksArgs(args, io);
  if (typeof parsed === 'number') return parsed;
  const { verb, agentId, json } = parsed;
  // The host writes the agents' configs; with none running, localWriter does (see there).
  const r = await applyHooks(io, { op: verb, agent: agentId });
  if (!r.ok) return refused(io, r.code, r.message);
  const { agents: results, skills, mcp, skipped } = r.result;
  for (const line of skipped) io.err(`termio hooks: ${line}\n`);
  const home = io.env.HOME ?? '';
  if (json) printOk(io, { agents: results, skills, mcp });
  else {
    for (const a of results) io.out(`${describe(a, home, a.notReporting)}\n`);
    for (const x of skills) io.out(`${describeSkill(x, home)}\n`);
    for (const x of mcp) io.out(`${describeMcp(x, home)}\n`);
  }
  return [...results, ...skills, ...mcp].some((x) => x.error !== undefined) ? ExitCode.failed : ExitCode.ok;
}
