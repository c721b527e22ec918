// The worktrees Termio made, kept in $TERMIO_HOME/state/worktrees.json: each one's folder,
// branch, base and repository, the session it belongs to and that session's first prompt. A
// worktree outlives its session (closing keeps it unless asked), so this is its own file.
import * as z from 'zod';
import { readEntries, writeEntries } from '../../services/entryFile';

const RecordSchema = z.looseObject({
  path: z.string().min(1),
  branch: z.string().min(1),
  base: z.string().min(1),
  repo: z.string().min(1),
  agentId: z.string().nullable().default(null),
  sessionId: z.string().nullable().default(null),
  prompt: z.string().nullable().default(null),
  createdAt: z.string().min(1),
});
export type WorktreeRecord = z.infer<typeof RecordSchema>;

export class WorktreeRecords {
  private records: WorktreeRecord[] = [];

  constructor(
    private readonly file: string,
    private readonly warn: (message: string) => void,
  ) {
    this.load();
  }

  private load(): void {
    this.records = readEntries(this.file, 'worktrees', RecordSchema, this.warn, {
      unreadable: 'worktrees are still on disk (git worktree list)',
      entry: 'a worktree record',
    });
  }

  list(): WorktreeRecord[] {
    return [...this.records];
  }

  bySession(id: string): WorktreeRecord | undefined {
    return this.records.find((r) => r.sessionId === id);
  }

  byPath(path: string): WorktreeRecord | undefined {
    return this.records.find((r) => r.path === path);
  }

  add(r: WorktreeRecord): void {
    this.records = [...this.records.filter((x) => x.path !== r.path), r];
    this.save();
  }

  remove(path: string): void {
    this.records = this.records.filter((x) => x.path !== path);
    this.save();
  }

  private save(): void {
    writeEntries(this.file, 'worktrees', this.records);
  }
}
