// Keeps a worktree's changed-files count current: inotify/FSEvents watches on its folders (none
// ignored by git, never .git), so an idle worktree costs nothing, and a burst of saves leads to
// one recount shortly after the last of them.
import { readdirSync, statSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Git } from './git';

/** Saves come in bursts (an editor writes a temp file, renames, touches: all within a few ms);
 *  15 ms gathers one burst into one recount and leaves the 300 ms budget to git. */
const SETTLE_MS = 15;
/** Folders watched per worktree at most: inotify's default budget is 8,192 per user for all
 *  programs, so a huge tree is watched down to this many folders and the rest counted on recount. */
const MAX_WATCHED_DIRS = 4_000;

export class ChangeWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private ignored = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    private readonly dir: string,
    private readonly onChange: () => void,
  ) {}

  /** Starts watching; the ignored folders come from git, so build output is not watched. */
  async start(git: Git): Promise<void> {
    const r = await git.run(['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z'], { cwd: this.dir }).catch(() => null);
    if (r?.code === 0)
      this.ignored = new Set(
        r.stdout
          .split('\0')
          .filter((p) => p.endsWith('/'))
          .map((p) => join(this.dir, p.slice(0, -1))),
      );
    if (!this.disposed) this.add(this.dir);
  }

  private add(dir: string): void {
    if (this.disposed || this.watchers.has(dir) || this.ignored.has(dir) || this.watchers.size >= MAX_WATCHED_DIRS) return;
    const rel = relative(this.dir, dir);
    if (rel === '.git' || rel.startsWith(`.git${sep}`)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (_event, name) => this.changed(dir, name));
    } catch {
      return;
    }
    w.on('error', () => this.drop(dir));
    this.watchers.set(dir, w);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory() && e.name !== '.git') this.add(join(dir, e.name));
  }

  private drop(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  private changed(dir: string, name: string | Buffer | null): void {
    if (this.disposed) return;
    // A new folder is watched as it appears (its files then count on the recount below).
    if (name) {
      const path = join(dir, name.toString());
      if (!this.watchers.has(path) && isDirectory(path)) this.add(path);
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.onChange();
    }, SETTLE_MS);
  }

  get watchedDirs(): number {
    return this.watchers.size;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
