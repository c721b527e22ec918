// `termio hooks install|uninstall|status [--agent ID] [--json]`: puts Termio's status hooks into
// (or takes them out of) each agent's own config, for every manifest that declares hooks.
// Works without the app running: it edits files only.
import { AgentCatalog } from '../host/catalog';
import {
  checkAndRepairAgentHooks,
  ensureLauncher,
  installAgentHooks,
  uninstallAgentHooks,
  type AgentHookResult,
  type AgentHooks,
} from '../host/hookInstaller';
import { termioPaths } from '../host/paths';
import { ExitCode, type CliIo } from './main';
import { shortenHome } from '../../protocol/homePath';

const HELP = `Usage: termio hooks install|uninstall|status [--agent ID] [--json]

Live agent status: installs Termio's reporter into each agent's own hook configuration
(e.g. ~/.claude/settings.json), removes exactly those entries again, or shows where they are.
The entries run $TERMIO_HOME/bin/termio-hook, a launcher Termio keeps pointing at its reporter;
status also repairs entries that run anything else (a moved checkout, an older install).
Your own entries, comments and formatting are kept byte for byte; a config that does not
parse is reported and left alone; the original is backed up under $TERMIO_HOME/backups/hooks.

Options:
  --agent ID   only this agent (default: every agent whose manifest declares hooks)
  --json       print the results as JSON
`;

function describe(r: AgentHookResult, home: string): string {
  const file = shortenHome(r.file, home);
  const parts = [`${r.agentId.padEnd(10)} ${r.state.padEnd(10)} ${file}`];
  if (r.action !== 'none') parts.push(`(${r.action})`);
  if (r.state === 'partial') parts.push(`missing: ${r.missing.join(', ')}`);
  let line = parts.join('  ');
  if (r.error) line += `\n  error: ${r.error}`;
  if (r.note && r.state !== 'absent') line += `\n  note: ${r.note}`;
  if (r.backup) line += `\n  backup: ${r.backup}`;
  return line;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(HELP);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (verb !== 'install' && verb !== 'uninstall' && verb !== 'status') {
    io.err(`termio hooks: unknown verb '${verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  let agentId: string | undefined;
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--json') json = true;
    else if (a === '--agent' && rest[i + 1] !== undefined) agentId = rest[++i];
    else if (a?.startsWith('--agent=')) agentId = a.slice('--agent='.length);
    else {
      io.err(`termio hooks: unexpected argument '${a}'\n\n${HELP}`);
      return ExitCode.usage;
    }
  }

  // The same catalog the app loads (bundled + user, user overriding by id); no PATH look-up,
  // since installing hooks does not need the agent to be installed yet.
  const catalog = await AgentCatalog.create({ env: io.env, watch: false, path: '' });
  const manifests = new Map(catalog.list().map((e) => [e.id, e.manifest] as const));
  for (const p of catalog.problems()) io.err(`termio hooks: skipped manifest: ${p.errors.join('; ')}\n`);
  await catalog.dispose();
  let agents: AgentHooks[] = [...manifests.values()].flatMap((m) => (m.hooks ? [{ agentId: m.id, hooks: m.hooks }] : []));
  if (agentId !== undefined) {
    const m = manifests.get(agentId);
    if (!m) {
      io.err(`termio hooks: no agent '${agentId}' (known: ${[...manifests.keys()].join(', ')})\n`);
      return ExitCode.usage;
    }
    if (!m.hooks) {
      io.err(`termio hooks: agent '${agentId}' declares no hooks; its status comes from its title or screen\n`);
      return ExitCode.usage;
    }
    agents = agents.filter((a) => a.agentId === agentId);
  }

  const home = io.env.HOME ?? '';
  if (!home) {
    io.err('termio hooks: HOME is not set; cannot find the agents\' config files\n');
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
  const opts = { paths, home, reporter };
  const results = agents.map((a) =>
    verb === 'install' ? installAgentHooks(a, opts) : verb === 'uninstall' ? uninstallAgentHooks(a, opts) : checkAndRepairAgentHooks(a, opts),
  );
  if (json) io.out(`${JSON.stringify(results, null, 2)}\n`);
  else for (const r of results) io.out(`${describe(r, home)}\n`);
  return results.some((r) => r.error !== undefined) ? ExitCode.failed : ExitCode.ok;
}
