// The app's review view asks through its own connection what `termio sessions diff|commit|merge|
// rebase|close` ask through the control socket: the same verbs, the same argument schemas, the
// same answers, so the view and the command line can never disagree.
import { ControlArgsSchemas, type ControlErrorCode } from '../../../protocol/control';
import type { Host } from '../host';
import { WorktreeVerbs } from './worktreeVerbs';

export type ReviewAnswer = { ok: true; result: unknown } | { ok: false; code: ControlErrorCode; message: string };

export async function reviewRequest(
  host: Host,
  verb: 'worktrees.diff' | 'worktrees.act' | 'sessions.close',
  raw: Record<string, unknown>,
): Promise<ReviewAnswer> {
  const verbs = new WorktreeVerbs({ service: async () => host.worktrees, registry: host.registry, path: () => host.sessionPath });
  if (verb === 'worktrees.diff') {
    const args = ControlArgsSchemas[verb].safeParse(raw);
    return args.success ? verbs.diff(args.data) : bad(verb, args.error.message);
  }
  if (verb === 'worktrees.act') {
    const args = ControlArgsSchemas[verb].safeParse(raw);
    return args.success ? verbs.act(args.data) : bad(verb, args.error.message);
  }
  const args = ControlArgsSchemas[verb].safeParse(raw);
  return args.success ? verbs.close(args.data) : bad(verb, args.error.message);
}

function bad(verb: string, message: string): ReviewAnswer {
  return { ok: false, code: 'badRequest', message: `${verb}: ${message}` };
}
