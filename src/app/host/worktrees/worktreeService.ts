// The host's worktree service: makes a session's worktree (set-up read and checked first), keeps
// the record of which session owns which worktree, the live changed-files count of each one a
// session has open, and runs the review's actions by session or folder. Sessions, the control
// verbs and the app reach worktrees only through here.
import { dirname, join } from 'node:path';
import { Emitter, type Disposable } from '../../../protocol/events';
import { commitAll, mergeIntoBase, proposedMessage, rebaseOnBase, removeWorktree, workAtStake, type ActionResult } from './actions';
import { Git, GitError, GitMissing } from './git';
import { WorktreeRecords, type WorktreeRecord } from './records';
import { Repo } from './repo';
import { changedCount, changedFiles, diffText, type ChangedFile } from './review';
import { readSetup, type SetupPlan } from './setup';
import { LiveCount } from './liveCount';
import { ChangeWatcher } from './watcher';
import { checkBase, createWorktree, type CreateRequest, type WorktreeRef } from './worktreeCreate';

export type { WorktreeRecord, WorktreeRef, ChangedFile, ActionResult, SetupPlan };

/** created: the branch is new (a given branch that existed is the user's, and outlives a failed start). */
export type Prepared = { ok: true; worktree: WorktreeRef; created: boolean; setup: SetupPlan | null } | { ok: false; message: string };

export interface WorktreeStatus extends WorktreeRecord {
  /** The folder is still a worktree of its repository. */
  present: boolean;
  uncommitted: number;
  unmerged: number;
  changed: number | null;
}

export interface WorktreeServiceOptions {
  recordsFile: string;
  /** The worktree root setting ('' = beside each repository). */
  root: () => string;
  warn: (message: string, fields?: Record<string, unknown>) => void;
  git?: Git;
}

/** Errors a user can cause (git refusing, git missing) as values; bugs still throw. */
async function guarded<T>(work: () => Promise<T>): Promise<T | { ok: false; code: 'refused'; message: string }> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof GitError || err instanceof GitMissing) return { ok: false, code: 'refused', message: err.message };
    throw err;
  }
}

export class WorktreeService implements Disposable {
  readonly git: Git;
  private readonly records: WorktreeRecords;
  private readonly live = new Map<string, { watcher: ChangeWatcher; counter: LiveCount; count: number | null; running: boolean; again: boolean }>();
  private readonly counted = new Emitter<{ sessionId: string; count: number | null }>();
  /** A live session's changed-files count moved. */
  readonly onCount = this.counted.event;

  constructor(private readonly o: WorktreeServiceOptions) {
    this.git = o.git ?? new Git();
    this.records = new WorktreeRecords(o.recordsFile, (m) => o.warn(m));
  }

  /** Checks the set-up file, then creates the worktree. Nothing is left behind on a refusal. */
  async prepare(req: Omit<CreateRequest, 'root'>): Promise<Prepared> {
    const repo = await guarded(() => Repo.open(this.git, req.dir));
    if (!repo.ok) return repo;
    const check = readSetup(repo.value.root, repo.value.root);
    if (!check.ok) return check;
    const made = await createWorktree(this.git, { ...req, root: this.o.root() });
    if (!made.ok) return made;
    const setup = readSetup(made.worktree.repo, made.worktree.path);
    return { ok: true, worktree: made.worktree, created: made.created, setup: setup.ok ? setup.plan : null };
  }

  /** Checks what prepare() would refuse before anything is made: the repository, its set-up file,
   *  the base (a dirty checkout is refused). Answers the repository's main checkout and the base. */
  async check(req: { dir: string; base?: string }): Promise<{ ok: true; repo: string; base: string } | { ok: false; message: string }> {
    const base = await checkBase(this.git, req);
    if (!base.ok) return base;
    const setup = readSetup(base.repo, base.repo);
    return setup.ok ? base : setup;
  }

  /** Records that a session owns this worktree. */
  adopt(sessionId: string, wt: WorktreeRef, meta: { agentId: string | null; prompt: string | null }): void {
    this.records.add({ ...wt, sessionId, agentId: meta.agentId, prompt: meta.prompt, createdAt: new Date().toISOString() });
  }

  /** Undoes prepare() when the session could not start after all. */
  async discard(wt: WorktreeRef, created: boolean): Promise<void> {
    await guarded(() => removeWorktree(this.git, wt, { force: true, stopAt: this.stopAt(wt), keepBranch: !created }));
    this.records.remove(wt.path);
  }

  /** What removing would put at risk; null when git cannot tell (the folder is gone). */
  async stake(rec: WorktreeRef): Promise<{ uncommitted: string[]; unmerged: number } | null> {
    return workAtStake(this.git, rec).catch(() => null);
  }

  ofSession(id: string): WorktreeRecord | undefined {
    return this.records.bySession(id);
  }

  find(ref: string): WorktreeRecord | undefined {
    return this.records.bySession(ref) ?? this.records.byPath(ref);
  }

  count(sessionId: string): number | null {
    return this.live.get(sessionId)?.count ?? null;
  }

  /** Starts the live count of a session's worktree (a session opened or resumed). */
  watch(sessionId: string): void {
    const rec = this.records.bySession(sessionId);
    if (!rec || this.live.has(sessionId)) return;
    const entry = {
      watcher: new ChangeWatcher(rec.path, () => void this.recount(sessionId)),
      counter: new LiveCount(this.git, rec.path, rec.base),
      count: null as number | null,
      running: false,
      again: false,
    };
    this.live.set(sessionId, entry);
    entry.watcher.start(this.git).then(
      () => this.recount(sessionId),
      (err: unknown) => this.o.warn('worktree watch failed', { path: rec.path, error: String(err) }),
    );
  }

  unwatch(sessionId: string): void {
    this.live.get(sessionId)?.watcher.dispose();
    this.live.delete(sessionId);
  }

  /** Counts again now (after a save, or an action that moved a branch). One count at a time per session. */
  async recount(sessionId: string): Promise<void> {
    const entry = this.live.get(sessionId);
    const rec = this.records.bySession(sessionId);
    if (!entry || !rec) return;
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = true;
    try {
      do {
        entry.again = false;
        const n = await entry.counter.count().catch(() => null);
        if (this.live.get(sessionId) !== entry) return;
        if (n !== entry.count) {
          entry.count = n;
          this.counted.fire({ sessionId, count: n });
        }
      } while (entry.again);
    } finally {
      entry.running = false;
    }
  }

  files(rec: WorktreeRef): Promise<ChangedFile[] | { ok: false; code: 'refused'; message: string }> {
    return guarded(() => changedFiles(this.git, rec.path, rec.base));
  }

  diff(rec: WorktreeRef, opts: { stat?: boolean; file?: string }): Promise<string | { ok: false; code: 'refused'; message: string }> {
    return guarded(() => diffText(this.git, rec.path, rec.base, opts));
  }

  proposedMessage(rec: WorktreeRecord, title: string): string {
    return proposedMessage(rec.prompt ?? title, `Work from ${rec.agentId ?? 'a'} session on ${rec.branch}`);
  }

  async act(rec: WorktreeRecord, action: 'commit' | 'merge' | 'rebase', message?: string): Promise<ActionResult> {
    const result = await guarded(() => {
      if (action === 'commit') return commitAll(this.git, rec, message ?? this.proposedMessage(rec, ''));
      if (action === 'merge') return mergeIntoBase(this.git, rec);
      return rebaseOnBase(this.git, rec);
    });
    for (const id of this.live.keys()) void this.recount(id);
    return result;
  }

  /** Removes a worktree (refused with work at stake unless forced); its record goes with it. */
  async remove(rec: WorktreeRecord, force: boolean): Promise<ActionResult> {
    const result = await guarded(() => removeWorktree(this.git, rec, { force, stopAt: this.stopAt(rec) }));
    if (result.ok) {
      if (rec.sessionId) this.unwatch(rec.sessionId);
      this.records.remove(rec.path);
    }
    return result;
  }

  /** Every recorded worktree with what it holds (records whose folder git no longer knows say so). */
  async list(): Promise<WorktreeStatus[]> {
    const out: WorktreeStatus[] = [];
    for (const rec of this.records.list()) {
      const present = await this.isPresent(rec);
      const stake = present ? await workAtStake(this.git, rec).catch(() => ({ uncommitted: [], unmerged: 0 })) : { uncommitted: [], unmerged: 0 };
      const changed = present ? await changedCount(this.git, rec.path, rec.base).catch(() => null) : null;
      out.push({ ...rec, present, uncommitted: stake.uncommitted.length, unmerged: stake.unmerged, changed });
    }
    return out;
  }

  /** Removes the worktrees that are merged and clean and whose session is closed; forgets vanished ones. */
  async prune(isOpen: (sessionId: string) => boolean): Promise<{ removed: WorktreeStatus[]; kept: WorktreeStatus[] }> {
    const removed: WorktreeStatus[] = [];
    const kept: WorktreeStatus[] = [];
    for (const st of await this.list()) {
      const open = st.sessionId !== null && isOpen(st.sessionId);
      if (!st.present && !open) {
        this.records.remove(st.path);
        removed.push(st);
      } else if (!open && st.uncommitted === 0 && st.unmerged === 0) {
        const r = await this.remove(st, false);
        (r.ok ? removed : kept).push(st);
      } else kept.push(st);
    }
    return { removed, kept };
  }

  private async isPresent(rec: WorktreeRecord): Promise<boolean> {
    const r = await guarded(async () => new Repo(this.git, rec.repo).worktrees());
    return Array.isArray(r) && r.some((w) => w.path === rec.path);
  }

  /** The folder above which removal never tidies: the worktrees root of that repository. */
  private stopAt(wt: WorktreeRef): string {
    const root = this.o.root();
    return root ? join(root) : dirname(`${wt.repo}.worktrees`);
  }

  dispose(): void {
    for (const id of [...this.live.keys()]) this.unwatch(id);
    this.counted.dispose();
  }
}
