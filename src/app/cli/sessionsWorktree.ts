// The worktree part of `termio sessions`: --worktree on spawn and run, what close does with a
// worktree, and the review verbs diff, commit, merge and rebase. sessions.ts owns parsing, the
// connection and the output conventions, and lends them here.
import type { ControlArgs, ControlResult, ControlVerb } from '../../protocol/control';
import { ExitCode } from './cliIo';
import { printOk } from './output';
import type { Ctx, Parsed, VerbSpec } from './sessionsTypes';

/** What sessions.ts lends the handlers. */
export interface Kit {
  /** waitMs: how much longer than usual the reply may take (a verb that runs long). */
  call<V extends ControlVerb>(
    ctx: Ctx,
    verb: V,
    args: ControlArgs<V>,
    waitMs?: number,
  ): Promise<{ ok: true; result: ControlResult<V> } | { ok: false; code: number }>;
  usageError(ctx: Ctx, verb: string, message: string): number;
}

/** The options every review verb takes. */
export const common = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export const worktreeOptions = { worktree: { type: 'boolean' }, branch: { type: 'string' }, base: { type: 'string' } } as const;
export const worktreeUsage = '[--worktree [--branch NAME] [--base REF]]';
export const worktreeDetails =
  '--worktree: start in a new git worktree of the repository --cwd is in, on a new branch (--branch NAME; default named after the agent and the prompt) from --base REF (default: the branch checked out there), beside the repository as <repo>.worktrees/<branch> unless the worktrees.root setting names a root.';

export const worktreeSpecs: Record<string, VerbSpec> = {
  diff: {
    usage: 'termio sessions diff ID [--stat] [--file PATH] [--json]',
    summary: 'show what a worktree session changed against its base (commits, edits and new files)',
    details: 'ID is a worktree session (open or closed) or a worktree folder. --stat prints the summary instead of the patch.',
    options: { ...common, stat: { type: 'boolean' }, file: { type: 'string' } },
    positionals: ['ID'],
  },
  commit: {
    usage: 'termio sessions commit ID [-m MESSAGE] [--json]',
    summary: "commit everything in a worktree session's folder (message proposed from its first prompt)",
    options: { ...common, message: { type: 'string', short: 'm' } },
    positionals: ['ID'],
  },
  merge: {
    usage: 'termio sessions merge ID [--json]',
    summary: "merge a worktree session's branch into its base (fast-forward when possible)",
    details:
      "A conflict is reported with its files and changes nothing; rebase, resolve in the worktree, and merge again. The base's own checkout must be clean.",
    options: common,
    positionals: ['ID'],
  },
  rebase: {
    usage: 'termio sessions rebase ID [--json]',
    summary: "rebase a worktree session's branch on its base",
    details: 'A conflict is reported with its files and the rebase is undone.',
    options: common,
    positionals: ['ID'],
  },
  close: {
    usage: 'termio sessions close ID [--remove-worktree [--force]] [--json]',
    summary: 'close the session (its program is ended); a worktree session keeps its worktree unless told',
    details:
      '--remove-worktree: remove its worktree too. Refused when it has uncommitted files or commits its base lacks, unless --force (a branch with such commits is kept as a branch).',
    options: { ...common, 'remove-worktree': { type: 'boolean' }, force: { type: 'boolean' } },
    positionals: ['ID'],
  },
};

/** The worktree a spawn or run asks for, from its flags (or a usage error). */
export function worktreeChoice(p: Parsed): { worktree?: { branch?: string; base?: string } } | string {
  const { worktree, branch, base } = p.values;
  if (!worktree) return branch !== undefined || base !== undefined ? '--branch and --base go with --worktree' : {};
  return { worktree: { branch: typeof branch === 'string' ? branch : undefined, base: typeof base === 'string' ? base : undefined } };
}

type Handler = (p: Parsed, ctx: Ctx) => Promise<number>;

export function worktreeHandlers(kit: Kit): Record<string, Handler> {
  const said = async (ctx: Ctx, r: Awaited<ReturnType<Kit['call']>>): Promise<number> => {
    if (!r.ok) return r.code;
    if (ctx.json) printOk(ctx.io, r.result as object);
    else ctx.io.out(`${(r.result as { message: string }).message}\n`);
    return ExitCode.ok;
  };
  const act = (action: 'commit' | 'merge' | 'rebase') => async (p: Parsed, ctx: Ctx) => {
    const message = typeof p.values.message === 'string' ? p.values.message : undefined;
    if (message === '') return kit.usageError(ctx, 'commit', '--message needs some text');
    return said(ctx, await kit.call(ctx, 'worktrees.act', { ref: p.positionals[0] ?? '', action, message }));
  };
  return {
    async diff(p, ctx) {
      const file = typeof p.values.file === 'string' ? p.values.file : undefined;
      const r = await kit.call(ctx, 'worktrees.diff', {
        ref: p.positionals[0] ?? '',
        stat: p.values.stat ? true : undefined,
        file,
      });
      if (!r.ok) return r.code;
      if (ctx.json) printOk(ctx.io, r.result);
      else if (r.result.files.length === 0) ctx.io.err(`termio: no changes on ${r.result.worktree.branch} against ${r.result.worktree.base}\n`);
      else ctx.io.out(r.result.text);
      return ExitCode.ok;
    },
    commit: act('commit'),
    merge: act('merge'),
    rebase: act('rebase'),
    async close(p, ctx) {
      if (p.values.force && !p.values['remove-worktree']) return kit.usageError(ctx, 'close', '--force goes with --remove-worktree');
      const r = await kit.call(ctx, 'sessions.close', {
        id: p.positionals[0] ?? '',
        worktree: p.values['remove-worktree'] ? ('remove' as const) : undefined,
        force: p.values.force ? true : undefined,
      });
      if (!r.ok) return r.code;
      if (ctx.json) printOk(ctx.io, r.result);
      else if (r.result.worktree) ctx.io.out(`${r.result.worktree}\n`);
      return ExitCode.ok;
    },
  };
}
