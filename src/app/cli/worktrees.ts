// `termio worktrees list|prune|remove`: the git worktrees Termio made for sessions, what each
// holds (uncommitted files, commits its base lacks), pruning the merged and clean ones, and
// removing one (with --force when work is at stake).
import type { WorktreeStatusInfo } from '../../protocol/control';
import { askHost } from './askHost';
import { ExitCode, parseOrUsage, type CliIo, type CommandHandler } from './cliIo';
import { printError, printOk } from './output';
import { tilde } from './sessionsText';

const HELP = `Usage: termio worktrees <verb> [--json]

Verbs:
  list                      every worktree Termio made: branch, base, folder, its session, what it holds
  prune                     remove the worktrees whose session is closed, merged into their base and
                            clean (nothing uncommitted); prints what it removed and what it kept
  remove ID|DIR [--force]   remove one (its session must be closed); refused with uncommitted files or
                            commits its base lacks unless --force, and a branch with such commits is kept

ID is the session a worktree was made for (or a unique prefix); DIR its folder.
Exit codes: 0 ok, 1 error, 2 bad usage, 4 Termio not running.
`;

function holds(w: WorktreeStatusInfo): string {
  if (!w.present) return 'folder gone';
  const parts = [w.uncommitted ? `${w.uncommitted} uncommitted` : '', w.unmerged ? `${w.unmerged} unmerged` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'merged, clean';
}

function table(rows: WorktreeStatusInfo[], env: NodeJS.ProcessEnv): string {
  if (rows.length === 0) return 'No worktrees.\n';
  const cells = [
    ['BRANCH', 'BASE', 'SESSION', 'HOLDS', 'FOLDER'],
    ...rows.map((w) => [w.branch, w.base, w.sessionId ? `${w.sessionId.slice(0, 8)}${w.open ? '' : ' (closed)'}` : '-', holds(w), tilde(w.path, env)]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

/** What is wrong with the command line (null: nothing), in the words the usage error prints. */
function usageProblem(verb: string | undefined, ref: string | undefined, extra: string | undefined, force: boolean): string | null {
  if (verb === undefined) return 'missing verb';
  if (!['list', 'prune', 'remove'].includes(verb)) return `unknown verb '${verb}'`;
  if (verb === 'remove' && !ref) return 'remove: missing ID or DIR';
  if (extra !== undefined || (verb !== 'remove' && ref !== undefined)) return `unexpected argument '${extra ?? ref}'`;
  if (force && verb !== 'remove') return '--force goes with remove';
  return null;
}

/** The reply of any of the three verbs: list gives worktrees, prune removed and kept, remove a message. */
type WorktreesResult = { worktrees?: WorktreeStatusInfo[]; removed?: WorktreeStatusInfo[]; kept?: WorktreeStatusInfo[]; message?: string };

function printResult(result: WorktreesResult, io: CliIo, json: boolean): void {
  if (json) printOk(io, result);
  else if (result.worktrees) io.out(table(result.worktrees, io.env));
  else if (result.removed) {
    io.out(result.removed.length ? `Removed:\n${table(result.removed, io.env)}` : 'Nothing to prune.\n');
    if (result.kept?.length) io.out(`Kept (open, uncommitted or unmerged):\n${table(result.kept, io.env)}`);
  } else io.out(`${result.message}\n`);
}

export const run: CommandHandler = async (args, io) => {
  const parsed = parseOrUsage(io, 'worktrees', HELP, args, { json: { type: 'boolean' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [verb, ref, extra] = positionals;
  if (values.help || verb === 'help') {
    io.out(HELP);
    return ExitCode.ok;
  }
  const json = values.json === true;
  const bad = usageProblem(verb, ref, extra, values.force === true);
  if (bad) {
    printError(io, json, 'usage', `worktrees ${bad}`);
    io.err(`\n${HELP}`);
    return ExitCode.usage;
  }
  const r =
    verb === 'list'
      ? await askHost(io, json, 'worktrees.list', {})
      : verb === 'prune'
        ? await askHost(io, json, 'worktrees.prune', {})
        : await askHost(io, json, 'worktrees.remove', { ref: ref!, force: values.force ? true : undefined });
  if (!r.ok) return r.code;
  printResult(r.result as WorktreesResult, io, json);
  return ExitCode.ok;
};
