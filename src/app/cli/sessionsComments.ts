// Review comments from the command line: `termio sessions comment` writes one on lines of a
// worktree session's diff, `termio sessions comments` lists the pending ones, removes one, or
// sends them all to the agent as one prompt. The host keeps the list (the review view shows the
// same one); sessions.ts owns parsing, the connection and the output conventions.
import type { ControlResult } from '../../protocol/control';
import { commentPlace, parseLineRange } from '../../protocol/reviewComments';
import { ExitCode } from './cliIo';
import { printOk } from './output';
import { common, type Kit } from './sessionsWorktree';
import type { Ctx, Parsed, VerbSpec } from './sessionsTypes';

export const commentSpecs: Record<string, VerbSpec> = {
  comment: {
    usage: 'termio sessions comment ID --file PATH --line N[-M] [--replace K] TEXT [--json]',
    summary: "comment on lines of a worktree session's diff (sent to its agent with `comments send`)",
    details:
      'PATH is a file in the diff (as `termio sessions diff ID --stat` names it); lines are numbered as in the new file, and must be lines the diff shows (a removed line counts as the line after it). --replace K rewrites pending comment K in its place.',
    options: { ...common, file: { type: 'string' }, line: { type: 'string' }, replace: { type: 'string' } },
    positionals: ['ID', 'TEXT'],
  },
  comments: {
    usage: 'termio sessions comments [send | remove] ID [N] [--json]',
    summary: "list a worktree session's pending review comments; send them to its agent as one prompt; remove comment N",
    details:
      'send: the comments are typed into the agent as one prompt once it is ready for input (never into a turn or a question), and leave the list once typed; if the agent is not ready within a day they return to it.',
    options: common,
    positionals: ['ID', 'ARG?', 'N?'],
  },
};

type List = ControlResult<'sessions.comments'>;

/** The pending list as text: each comment numbered, with its place, the rows it is on and its words. */
export function commentsText(r: List): string {
  const lines: string[] = [];
  r.comments.forEach((c, i) => {
    lines.push(`${i + 1}. ${commentPlace(c)}`, ...c.quote.map((q) => `   > ${q}`), ...c.text.split('\n').map((t) => `   ${t}`));
  });
  if (r.comments.length === 0) lines.push('No pending comments.');
  if (r.sending > 0) lines.push(`(${r.sending} more on the way: typed once the agent is ready for input)`);
  return `${lines.join('\n')}\n`;
}

type Handler = (p: Parsed, ctx: Ctx) => Promise<number>;

export function commentHandlers(kit: Kit): Record<string, Handler> {
  const listed = (ctx: Ctx, r: Awaited<ReturnType<Kit['call']>>): number => {
    if (!r.ok) return r.code;
    if (ctx.json) printOk(ctx.io, r.result as object);
    else ctx.io.out(commentsText(r.result as List));
    return ExitCode.ok;
  };
  return {
    async comment(p, ctx) {
      const [id = '', text = ''] = p.positionals;
      const { file, line, replace } = p.values;
      if (typeof file !== 'string' || file === '') return kit.usageError(ctx, 'comment', 'missing --file PATH');
      const range = typeof line === 'string' ? parseLineRange(line) : null;
      if (!range) return kit.usageError(ctx, 'comment', `--line wants N or N-M (whole numbers), not '${line ?? ''}'`);
      const index = typeof replace === 'string' ? Number(replace) : undefined;
      if (index !== undefined && !(Number.isInteger(index) && index >= 1))
        return kit.usageError(ctx, 'comment', `--replace wants a comment number, not '${replace}'`);
      if (text.trim() === '') return kit.usageError(ctx, 'comment', 'the comment has no text');
      return listed(ctx, await kit.call(ctx, 'sessions.comment', { id, file, ...range, text, replace: index }));
    },
    async comments(p, ctx) {
      const [first = '', second, third] = p.positionals;
      if (first === 'send') {
        if (second === undefined || third !== undefined) return kit.usageError(ctx, 'comments', 'send wants one session: comments send ID');
        const r = await kit.call(ctx, 'sessions.comments.send', { id: second });
        if (!r.ok || ctx.json) return listed(ctx, r);
        ctx.io.out(`Sending ${r.result.sending} comment${r.result.sending === 1 ? '' : 's'} as one prompt once the agent is ready for input.\n`);
        return ExitCode.ok;
      }
      if (first === 'remove') {
        const n = Number(third);
        if (second === undefined || !Number.isInteger(n) || n < 1)
          return kit.usageError(ctx, 'comments', 'remove wants a session and a comment number: comments remove ID N');
        return listed(ctx, await kit.call(ctx, 'sessions.comments.remove', { id: second, index: n }));
      }
      if (second !== undefined) return kit.usageError(ctx, 'comments', `unexpected argument '${second}' (comments ID, comments send ID, comments remove ID N)`);
      return listed(ctx, await kit.call(ctx, 'sessions.comments', { id: first }));
    },
  };
}
