// `termio sessions fanout`: one prompt started in a new worktree per agent (one repository, a
// branch each), kept by the host as a group; `fanout list|show` compares the members (branch,
// agent, state, diff stat, last test run), `fanout test` runs the repository's test command in a
// member's worktree, and `fanout merge` merges one member into the base, leaving the others as
// they were. sessions.ts owns parsing, the connection and the output conventions.
import { isAbsolute, resolve } from 'node:path';
import type { ControlResult, FanoutGroup, FanoutMemberStatus } from '../../protocol/control';
import { memberStatText, memberTestText } from '../present/fanoutText';
import { ExitCode } from './cliIo';
import { printOk } from './output';
import { common, type Kit } from './sessionsWorktree';
import type { Ctx, Parsed, VerbSpec } from './sessionsTypes';

/** How long starting one member may take (worktree, set-up check, the agent's launch) before the reply is given up on. */
const START_MS_PER_AGENT = 60_000;
/** The host ends a test command after 15 minutes; the reply waits a little longer. */
const TEST_WAIT_MS = 16 * 60_000;

export const fanoutSpecs: Record<string, VerbSpec> = {
  fanout: {
    usage:
      'termio sessions fanout --agents A,B,C --prompt TEXT [--cwd DIR] [--base REF] [--json]\n' +
      '       termio sessions fanout list [--json]\n' +
      '       termio sessions fanout show GROUP [--json]\n' +
      '       termio sessions fanout test GROUP --member M [--json]\n' +
      '       termio sessions fanout merge GROUP --member M [--commit] [--json]',
    summary: 'start one prompt in a new worktree per agent, compare the results, merge the one you choose',
    details: [
      'Each agent gets a new worktree of the repository DIR (default: here) is in, on a branch of its own named after it and the prompt (a repeated agent gets -2, -3, …), from REF (default: the branch checked out in DIR, which must have no uncommitted changes). Every agent and the repository are checked before anything starts.',
      'GROUP is a fan-out id or a unique prefix of one (see fanout list). M is a member by its branch, its session id (or a prefix), or its agent when only one member runs it.',
      'test: runs the "test" command of the repository\'s .termio/worktree.json in the member\'s worktree; the result is kept with the group.',
      "merge: the member's branch is merged into the base as `termio sessions merge` does (a conflict changes nothing); --commit commits its uncommitted files first. The other members' sessions, worktrees and branches are left as they were: close or remove them with `termio sessions close ID --remove-worktree`.",
    ].join('\n'),
    options: {
      ...common,
      agents: { type: 'string' },
      prompt: { type: 'string' },
      cwd: { type: 'string' },
      base: { type: 'string' },
      member: { type: 'string' },
      commit: { type: 'boolean' },
    },
    positionals: ['SUBVERB?', 'GROUP?'],
  },
};

/** One line per member: branch, agent, state, the diff stat and the last test run. */
function memberLine(m: FanoutMemberStatus, merged: string | null): string {
  const test = memberTestText(m);
  const mark = merged === m.branch ? '  merged' : '';
  return [m.branch, m.agent, m.state, memberStatText(m), ...(m.uncommitted ? [`${m.uncommitted} uncommitted`] : []), ...(test ? [test] : [])].join('  ') + mark;
}

function groupLine(g: FanoutGroup): string {
  const prompt = g.prompt.split('\n')[0]!.slice(0, 60);
  return `${g.id}  ${g.members.length} agents  ${g.repo} (${g.base})  ${prompt}${g.merged ? `  merged ${g.merged}` : ''}`;
}

type Handler = (p: Parsed, ctx: Ctx) => Promise<number>;
type Printed<T> = { ok: true; result: T } | { ok: false; code: number };

function printed<T extends object>(ctx: Ctx, r: Printed<T>, text: (t: T) => string): number {
  if (!r.ok) return r.code;
  if (ctx.json) printOk(ctx.io, r.result);
  else ctx.io.out(text(r.result));
  return ExitCode.ok;
}

const started = (r: ControlResult<'sessions.fanout'>) =>
  `Fan-out ${r.group.id}: ${r.group.members.length} agents on "${r.group.prompt.split('\n')[0]}" from ${r.group.base}\n` +
  r.group.members.map((m) => `  ${m.sessionId.slice(0, 8)}  ${m.agent.padEnd(8)}  ${m.branch}  ${m.path}\n`).join('');

const shown = (r: ControlResult<'sessions.fanout.show'>) =>
  `${groupLine(r.group)}\n${r.members.map((m) => `  ${memberLine(m, r.group.merged)}\n`).join('')}` +
  (r.testCommand ? `Test command: ${r.testCommand}\n` : 'No test command (add "test" to .termio/worktree.json).\n');

export function fanoutHandlers(kit: Kit & { parent: (ctx: Ctx) => { parent?: string } }): Record<string, Handler> {
  const member = (p: Parsed, ctx: Ctx, sub: string): { group: string; member: string } | number => {
    const [, group] = p.positionals;
    const m = p.values.member;
    if (group === undefined) return kit.usageError(ctx, 'fanout', `${sub} wants a group: fanout ${sub} GROUP --member M`);
    if (typeof m !== 'string' || m === '') return kit.usageError(ctx, 'fanout', `${sub} wants --member BRANCH (or a session id, or an agent)`);
    return { group, member: m };
  };
  const start = async (p: Parsed, ctx: Ctx): Promise<number> => {
    const { agents, prompt, cwd, base } = p.values;
    if (typeof agents !== 'string') return kit.usageError(ctx, 'fanout', 'missing --agents A,B,C (manifest ids, see termio agents list)');
    const ids = agents.split(',').map((a) => a.trim());
    if (ids.some((a) => a === '')) return kit.usageError(ctx, 'fanout', `--agents has an empty name in '${agents}'`);
    if (typeof prompt !== 'string' || prompt.trim() === '') return kit.usageError(ctx, 'fanout', 'missing --prompt TEXT');
    const dir = typeof cwd !== 'string' ? ctx.io.cwd : isAbsolute(cwd) ? cwd : resolve(ctx.io.cwd, cwd);
    const args = { agents: ids, prompt, cwd: dir, base: typeof base === 'string' ? base : undefined, ...kit.parent(ctx) };
    return printed(ctx, await kit.call(ctx, 'sessions.fanout', args, START_MS_PER_AGENT * ids.length), started);
  };
  return {
    async fanout(p, ctx) {
      const [sub, group] = p.positionals;
      if (sub === undefined) return start(p, ctx);
      if (sub === 'list')
        return printed(ctx, await kit.call(ctx, 'sessions.fanout.list', {}), (r) => r.groups.map((g) => `${groupLine(g)}\n`).join('') || 'No fan-outs.\n');
      if (sub === 'show') {
        if (group === undefined) return kit.usageError(ctx, 'fanout', 'show wants a group: fanout show GROUP');
        return printed(ctx, await kit.call(ctx, 'sessions.fanout.show', { group }), shown);
      }
      if (sub === 'test' || sub === 'merge') {
        const ref = member(p, ctx, sub);
        if (typeof ref === 'number') return ref;
        if (sub === 'test') {
          const r = await kit.call(ctx, 'sessions.fanout.test', ref, TEST_WAIT_MS);
          const code = printed(ctx, r, (t) => `${t.branch}: ${t.test.passed ? 'passed' : 'failed'} (${t.test.command})\n${t.test.output}`);
          return code === ExitCode.ok && r.ok && !r.result.test.passed ? ExitCode.failed : code;
        }
        const r = await kit.call(ctx, 'sessions.fanout.merge', { ...ref, commit: p.values.commit ? true : undefined });
        return printed(ctx, r, (t) => `${t.message}\nKept as they were: ${t.kept.join(', ') || 'none'}\n`);
      }
      return kit.usageError(ctx, 'fanout', `unknown subverb '${sub}' (list, show, test, merge; or --agents and --prompt to start one)`);
    },
  };
}
