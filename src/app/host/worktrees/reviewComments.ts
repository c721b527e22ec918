// The review comments waiting to go back to a worktree session's agent: kept by the host, so the
// review view and `termio sessions comment(s)` see one list, which outlives the view's window.
// A comment is checked against the worktree's diff when it is written (its file must be in it,
// its lines inside its hunks) and keeps the rows it is on. Sending types them all as one prompt
// the way a spawn's first prompt is typed: once the agent is ready for input, never into a turn
// or a question. Sent comments leave the list; comments the agent never got ready for stay.
import type { ControlArgs, Outcome } from '../../../protocol/control';
import { coveredLines, diffRows, quotedRows, reviewPrompt, type ReviewComment } from '../../../protocol/reviewComments';
import type { SessionRegistry } from '../sessions/sessionRegistry';
import type { WorktreeRecord, WorktreeService } from './worktreeService';

/** Comments wait this long for the agent to be ready (a long turn, a question left open): a day. */
export const COMMENTS_READY_WITHIN_MS = 24 * 60 * 60 * 1000;

export interface ReviewCommentsDeps {
  registry: SessionRegistry;
  worktrees: WorktreeService;
  /** Types a prompt once the session is ready for input (SessionWaits.deliverPrompt); true once it was submitted. */
  deliver: (id: string, prompt: string, readyWithinMs: number) => Promise<boolean>;
  log: (message: string, fields: Record<string, unknown>) => void;
}

interface Pending {
  comments: ReviewComment[];
  /** Comments typed or waiting for the agent to be ready. */
  sending: number;
}

type Found = { ok: true; id: string; rec: WorktreeRecord; pending: Pending } | (Outcome & { ok: false });

export class ReviewComments {
  private readonly bySession = new Map<string, Pending>();

  constructor(private readonly d: ReviewCommentsDeps) {
    d.registry.onRemoved((r) => this.bySession.delete(r.id));
  }

  /** An open worktree session and its pending list. */
  private find(ref: string): Found {
    const found = this.d.registry.find(ref);
    if (!found.ok) return found;
    const id = found.record.id;
    const rec = this.d.worktrees.ofSession(id);
    if (!rec) return { ok: false, code: 'notAWorktree', message: `session ${id} does not work in a worktree: only a worktree session's diff takes comments` };
    let pending = this.bySession.get(id);
    if (!pending) this.bySession.set(id, (pending = { comments: [], sending: 0 }));
    return { ok: true, id, rec, pending };
  }

  private list(id: string, p: Pending): Outcome {
    return { ok: true, result: { id, comments: p.comments, sending: p.sending } };
  }

  async add(args: ControlArgs<'sessions.comment'>): Promise<Outcome> {
    const f = this.find(args.id);
    if (!f.ok) return f;
    if (args.replace !== undefined && args.replace > f.pending.comments.length) return noComment(args.replace, f.pending);
    const quote = await this.quote(f.rec, args.file, args.line, args.to ?? args.line);
    if (typeof quote === 'string') return { ok: false, code: 'badComment', message: quote };
    const comment: ReviewComment = {
      file: args.file,
      line: args.line,
      to: args.to !== undefined && args.to !== args.line ? args.to : undefined,
      text: args.text,
      quote,
    };
    if (args.replace !== undefined) f.pending.comments[args.replace - 1] = comment;
    else f.pending.comments.push(comment);
    return this.list(f.id, f.pending);
  }

  /** The diff rows lines from..to of `file` are on, or what is wrong with them. */
  private async quote(rec: WorktreeRecord, file: string, from: number, to: number): Promise<string[] | string> {
    if (to < from) return `line range ${from}-${to} ends before it starts`;
    const files = await this.d.worktrees.files(rec);
    if (!Array.isArray(files)) return files.message;
    if (!files.some((c) => c.path === file)) {
      const names = files.map((c) => c.path);
      return `'${file}' is not in the diff of ${rec.branch} against ${rec.base} (${names.length ? `changed: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}` : 'nothing changed yet'})`;
    }
    const patch = await this.d.worktrees.diff(rec, { file });
    if (typeof patch !== 'string') return patch.message;
    const rows = diffRows(patch);
    const lines = new Set(rows.map((r) => r.line));
    const outside = [from, to].find((n) => !lines.has(n));
    if (outside !== undefined) return `line ${outside} of ${file} is not in its diff (the diff covers lines ${coveredLines(rows) || 'none'})`;
    return quotedRows(rows, from, to);
  }

  show(args: ControlArgs<'sessions.comments'>): Outcome {
    const f = this.find(args.id);
    return f.ok ? this.list(f.id, f.pending) : f;
  }

  remove(args: ControlArgs<'sessions.comments.remove'>): Outcome {
    const f = this.find(args.id);
    if (!f.ok) return f;
    if (args.index > f.pending.comments.length) return noComment(args.index, f.pending);
    f.pending.comments.splice(args.index - 1, 1);
    return this.list(f.id, f.pending);
  }

  /** Takes the pending comments off the list and types them as one prompt once the agent is
   *  ready; answers at once. If the agent is never ready, they go back on the list. */
  send(args: ControlArgs<'sessions.comments.send'>): Outcome {
    const f = this.find(args.id);
    if (!f.ok) return f;
    const { id, pending } = f;
    const batch = pending.comments.splice(0);
    if (batch.length === 0) return { ok: false, code: 'badComment', message: `session ${id} has no pending comments to send` };
    const prompt = reviewPrompt(batch);
    pending.sending += batch.length;
    this.d.log('review comments sending', { session: id, comments: batch.length });
    void this.d.deliver(id, prompt, COMMENTS_READY_WITHIN_MS).then(
      (typed) => this.delivered(id, pending, batch, typed),
      () => this.delivered(id, pending, batch, false),
    );
    return { ok: true, result: { id, comments: pending.comments, sending: pending.sending, prompt } };
  }

  private delivered(id: string, pending: Pending, batch: ReviewComment[], typed: boolean): void {
    pending.sending -= batch.length;
    // Not taken: back at the head of the list (the session may have closed: then nothing keeps it).
    if (!typed) pending.comments.unshift(...batch);
    this.d.log(typed ? 'review comments sent' : 'review comments not sent', { session: id, comments: batch.length });
  }
}

function noComment(n: number, p: Pending): Outcome {
  return { ok: false, code: 'badComment', message: `no comment ${n}: ${p.comments.length === 0 ? 'none is pending' : `the list has 1-${p.comments.length}`}` };
}
