// The control verbs of the review: a worktree's diff (with the proposed commit message and a
// `gh pr create` line), commit / merge / rebase, remove, list and prune, and what closing a
// worktree session does to its worktree. A worktree is named by its session (id or prefix, open
// or closed) or by its folder.
import { accessSync, constants } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ControlArgs, WorktreeStatusInfo, Outcome } from '../../../protocol/control';
import type { SessionRegistry } from '../sessions/sessionRegistry';
import { shellQuote } from '../../services/shellQuote';
import type { ReviewComments } from './reviewComments';
import type { ActionResult, WorktreeRecord, WorktreeService, WorktreeStatus } from './worktreeService';

export interface WorktreeVerbsDeps {
  /** The service once the host is up (the control socket listens before it). */
  service: () => Promise<WorktreeService>;
  registry: SessionRegistry;
  /** The PATH `gh` is looked for on (the login shell's). */
  path: () => string;
  /** The host's pending review comments, once the host is up. */
  comments: () => Promise<ReviewComments>;
}

export class WorktreeVerbs {
  constructor(private readonly d: WorktreeVerbsDeps) {}

  /** A session id, a unique prefix of one (open or closed session), or a worktree folder. */
  private async resolve(ref: string): Promise<{ ok: true; rec: WorktreeRecord; service: WorktreeService } | (Outcome & { ok: false })> {
    const service = await this.d.service();
    const found = this.d.registry.find(ref);
    let rec = found.ok ? service.ofSession(found.record.id) : service.find(ref);
    if (!rec && !found.ok && !isAbsolute(ref)) {
      const matches = (await service.list()).filter((w) => w.sessionId?.startsWith(ref));
      if (matches.length === 1) rec = matches[0];
    }
    if (!rec)
      return {
        ok: false,
        code: 'notAWorktree',
        message: found.ok
          ? `session ${found.record.id} does not work in a worktree (start one with --worktree)`
          : `no worktree session or folder matches '${ref}' (see termio worktrees list)`,
      };
    return { ok: true, rec, service };
  }

  async diff(args: ControlArgs<'worktrees.diff'>): Promise<Outcome> {
    const r = await this.resolve(args.ref);
    if (!r.ok) return r;
    const { rec, service } = r;
    const [files, text] = await Promise.all([service.files(rec), service.diff(rec, { stat: args.stat ? true : undefined, file: args.file })]);
    if (!Array.isArray(files)) return { ok: false, code: 'worktreeRefused', message: files.message };
    if (typeof text !== 'string') return { ok: false, code: 'worktreeRefused', message: text.message };
    const title = rec.sessionId ? (this.d.registry.get(rec.sessionId)?.title ?? '') : '';
    const proposedMessage = service.proposedMessage(rec, title);
    return {
      ok: true,
      result: { worktree: { path: rec.path, branch: rec.branch, base: rec.base }, files, text, proposedMessage, ghCommand: this.ghCommand(rec) },
    };
  }

  async act(args: ControlArgs<'worktrees.act'>): Promise<Outcome> {
    const r = await this.resolve(args.ref);
    if (!r.ok) return r;
    return answer(await r.service.act(r.rec, args.action, args.message));
  }

  async remove(args: ControlArgs<'worktrees.remove'>): Promise<Outcome> {
    const r = await this.resolve(args.ref);
    if (!r.ok) return r;
    if (r.rec.sessionId && this.d.registry.get(r.rec.sessionId)) {
      return {
        ok: false,
        code: 'worktreeRefused',
        message: `session ${r.rec.sessionId} still works in ${r.rec.path}: close it first (termio sessions close ${r.rec.sessionId.slice(0, 8)} --remove-worktree)`,
      };
    }
    return answer(await r.service.remove(r.rec, args.force === true));
  }

  async list(): Promise<Outcome> {
    const service = await this.d.service();
    return { ok: true, result: { worktrees: (await service.list()).map((w) => this.status(w)) } };
  }

  async prune(): Promise<Outcome> {
    const service = await this.d.service();
    const { removed, kept } = await service.prune((id) => this.d.registry.get(id) !== undefined);
    return { ok: true, result: { removed: removed.map((w) => this.status(w)), kept: kept.map((w) => this.status(w)) } };
  }

  /** The review comment verbs: add (or replace), list, remove, send. */
  async comment(args: ControlArgs<'sessions.comment'>): Promise<Outcome> {
    return (await this.d.comments()).add(args);
  }

  async comments(args: ControlArgs<'sessions.comments'>): Promise<Outcome> {
    return (await this.d.comments()).show(args);
  }

  async removeComment(args: ControlArgs<'sessions.comments.remove'>): Promise<Outcome> {
    return (await this.d.comments()).remove(args);
  }

  async sendComments(args: ControlArgs<'sessions.comments.send'>): Promise<Outcome> {
    return (await this.d.comments()).send(args);
  }

  /** `sessions.close`: keep the worktree (default), or remove it — refused with work at stake unless forced, before the session is touched. */
  async close(args: ControlArgs<'sessions.close'>): Promise<Outcome> {
    const found = this.d.registry.find(args.id);
    if (!found.ok) return found;
    const id = found.record.id;
    const service = await this.d.service();
    const rec = service.ofSession(id);
    if (!rec || args.worktree !== 'remove') {
      this.d.registry.close(id);
      return { ok: true, result: { id, worktree: rec ? `kept ${rec.path} (branch ${rec.branch})` : undefined } };
    }
    const stake = await service.stake(rec);
    if (!args.force && stake && (stake.uncommitted.length > 0 || stake.unmerged > 0)) {
      const refused = await service.remove(rec, false);
      if (!refused.ok) return answer(refused);
    }
    this.d.registry.close(id);
    const removed = await service.remove(rec, true);
    return removed.ok ? { ok: true, result: { id, worktree: removed.message } } : answer(removed);
  }

  private status(w: WorktreeStatus): WorktreeStatusInfo {
    const open = w.sessionId !== null && this.d.registry.get(w.sessionId) !== undefined;
    return {
      path: w.path,
      branch: w.branch,
      base: w.base,
      repo: w.repo,
      sessionId: w.sessionId,
      open,
      present: w.present,
      uncommitted: w.uncommitted,
      unmerged: w.unmerged,
      changed: w.changed,
    };
  }

  /** The line that opens a pull request for the branch, when gh is installed. */
  private ghCommand(rec: WorktreeRecord): string | null {
    const onPath = this.d
      .path()
      .split(':')
      .some((dir) => {
        try {
          if (!dir) return false;
          accessSync(join(dir, 'gh'), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
    if (!onPath) return null;
    return `cd ${shellQuote(rec.path)} && gh pr create --base ${shellQuote(rec.base)} --head ${shellQuote(rec.branch)} --fill`;
  }
}

/** An action's result as a control outcome (a conflict, work at stake, or any other refusal). */
export function answer(r: ActionResult | { ok: false; code: 'refused'; message: string }): Outcome {
  if (r.ok) return { ok: true, result: { message: r.message } };
  const code = r.code === 'conflict' ? 'mergeConflict' : r.code === 'unsaved' ? 'unsavedWork' : 'worktreeRefused';
  return { ok: false, code, message: r.message };
}
