// `termio hooks install|uninstall|status [--agent ID] [--json]`: puts Termio's status hooks into
// (or takes them out of) each agent's own config, for every manifest that declares hooks, and the
// Termio skill into the skills folder of each that names one. Works without the app running: it
// edits files only.
import { parseArgs } from 'node:util';
import { AgentCatalog } from '../services/catalog';
import {
  checkAndRepairAgentHooks,
  ensureLauncher,
  installAgentHooks,
  uninstallAgentHooks,
  type AgentHookResult,
  type AgentHooks,
} from '../services/hookInstaller';
import { termioPaths } from '../services/paths';
import { hookSilenceFile, readHookSilence, type SilentRelease } from '../services/hookSilence';
import { installSkill, skillStatus, uninstallSkill, type SkillResult } from '../services/skillInstaller';
import { applyMcp, mcpServerEntry, mcpStatus, type McpAgent, type McpResult } from '../services/mcpInstaller';
import { ExitCode, type CliIo } from './cliIo';
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
export type HookAgent = AgentHooks & { skills?: string; mcp?: McpAgent['mcp'] };

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

/** The agents whose manifests declare hooks (only `agentId` when given), or the exit code after an error. */
export async function hookAgents(io: CliIo, agentId: string | undefined): Promise<HookAgent[] | number> {
  // The same catalog the app loads (bundled + user, user overriding by id); no PATH look-up,
  // since installing hooks does not need the agent to be installed yet.
  const catalog = await AgentCatalog.create({ env: io.env, watch: false, path: '' });
  const manifests = new Map(catalog.list().map((e) => [e.id, e.manifest] as const));
  for (const p of catalog.problems()) io.err(`termio hooks: skipped manifest: ${p.errors.join('; ')}\n`);
  await catalog.dispose();
  const agents: HookAgent[] = [...manifests.values()].flatMap((m) =>
    m.hooks ? [{ agentId: m.id, hooks: m.hooks, skills: m.skills || undefined, mcp: m.mcp || undefined }] : [],
  );
  if (agentId === undefined) return agents;
  const m = manifests.get(agentId);
  if (!m) {
    io.err(`termio hooks: no agent '${agentId}' (known: ${[...manifests.keys()].join(', ')})\n`);
    return ExitCode.usage;
  }
  if (!m.hooks) {
    io.err(`termio hooks: agent '${agentId}' declares no hooks; its status comes from its title or screen\n`);
    return ExitCode.usage;
  }
  return agents.filter((a) => a.agentId === agentId);
}

/** Runs the verb on each agent's hooks, then on its skill and its MCP server registration. */
function apply(
  verb: Verb,
  agents: HookAgent[],
  opts: { paths: ReturnType<typeof termioPaths>; home: string; reporter: ReturnType<typeof ensureLauncher>; env: NodeJS.ProcessEnv },
): { results: AgentHookResult[]; skills: SkillResult[]; mcp: McpResult[] } {
  const mcpOpts = { paths: opts.paths, home: opts.home, entry: mcpServerEntry(opts.env) };
  const mcpOf = (skip: (i: number) => boolean) =>
    agents.flatMap((a, i) => {
      if (!a.mcp || skip(i)) return [];
      const agent = { agentId: a.agentId, mcp: a.mcp };
      return [verb === 'status' ? mcpStatus(agent, mcpOpts) : applyMcp(verb, agent, mcpOpts)];
    });
  // Out in the reverse order of in: the MCP server before the hooks, so the blocks both put in
  // Codex's config.toml come off as they went on and leave the user's bytes.
  const mcpFirst = verb === 'uninstall' ? mcpOf(() => false) : null;
  const results = agents.map((a) =>
    verb === 'install' ? installAgentHooks(a, opts) : verb === 'uninstall' ? uninstallAgentHooks(a, opts) : checkAndRepairAgentHooks(a, opts),
  );
  const skillFn = verb === 'install' ? installSkill : verb === 'uninstall' ? uninstallSkill : skillStatus;
  // The skill and the MCP server go in with hooks that went in, and out with them.
  const skills = agents.flatMap((a, i) => (a.skills && !(verb === 'install' && results[i]?.error) ? [skillFn(a.agentId, a.skills, { home: opts.home })] : []));
  const mcp = mcpFirst ?? mcpOf((i) => verb === 'install' && results[i]?.error !== undefined);
  return { results, skills, mcp };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseHooksArgs(args, io);
  if (typeof parsed === 'number') return parsed;
  const { verb, agentId, json } = parsed;
  const agents = await hookAgents(io, agentId);
  if (typeof agents === 'number') return agents;
  const home = io.env.HOME ?? '';
  if (!home) {
    io.err("termio hooks: HOME is not set; cannot find the agents' config files\n");
    return ExitCode.usage;
  }
  const paths = termioPaths(io.env);
  let reporter;
  try {
    reporter = ensureLauncher(paths);
  } catch (e) {
    io.err(`termio hooks: cannot write the hook launcher: ${(e as Error).message}\n`);
    return ExitCode.failed;
  }
  const { results, skills, mcp } = apply(verb, agents, { paths, home, reporter, env: io.env });
  // Releases whose hooks did not report in a session (the host notes them; see hookSilence.ts).
  const silence = readHookSilence(hookSilenceFile(paths));
  if (json) printOk(io, { agents: results.map((r) => (silence[r.agentId] ? { ...r, notReporting: silence[r.agentId] } : r)), skills, mcp });
  else {
    for (const r of results) io.out(`${describe(r, home, silence[r.agentId])}\n`);
    for (const r of skills) io.out(`${describeSkill(r, home)}\n`);
    for (const r of mcp) io.out(`${describeMcp(r, home)}\n`);
  }
  return [...results, ...skills, ...mcp].some((r) => r.error !== undefined) ? ExitCode.failed : ExitCode.ok;
}
