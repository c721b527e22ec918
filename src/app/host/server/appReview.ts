// The app's review view asks through its own connection what `termio sessions diff|commit|merge|
// rebase|close|comment|comments` ask through the control socket: the same verbs, the same
// argument schemas, the same answers, so the view and the command line can never disagree.
import { ControlArgsSchemas, type ControlArgs, type ControlErrorCode } from '../../../protocol/control';
import type { ReviewVerb } from '../../../protocol/hostAppMessages';
import type { Host } from '../host';
import { WorktreeVerbs } from '../worktrees/worktreeVerbs';

export type ReviewAnswer = { ok: true; result: unknown } | { ok: false; code: ControlErrorCode; message: string };

type ReviewHandlers = { [V in ReviewVerb]: (w: WorktreeVerbs, args: ControlArgs<V>) => Promise<ReviewAnswer> };

const handlers: ReviewHandlers = {
  'worktrees.diff': (w, args) => w.diff(args),
  'worktrees.act': (w, args) => w.act(args),
  'sessions.close': (w, args) => w.close(args),
  'sessions.comment': (w, args) => w.comment(args),
  'sessions.comments': (w, args) => w.comments(args),
  'sessions.comments.remove': (w, args) => w.removeComment(args),
  'sessions.comments.send': (w, args) => w.sendComments(args),
};

export async function reviewRequest<V extends ReviewVerb>(host: Host, verb: V, raw: Record<string, unknown>): Promise<ReviewAnswer> {
  const verbs = new WorktreeVerbs({
    service: async () => host.worktrees,
    registry: host.registry,
    path: () => host.sessionPath,
    comments: async () => host.reviewComments,
  });
  const args = ControlArgsSchemas[verb].safeParse(raw);
  if (!args.success) return { ok: false, code: 'badRequest', message: `${verb}: ${args.error.message}` };
  return (handlers[verb] as (w: WorktreeVerbs, args: unknown) => Promise<ReviewAnswer>)(verbs, args.data);
}
