// The sidebar's live changed-files count of one worktree, cheap enough to run after every save
// of a large tree: one `git status` (the only scan of the files, taking no lock, so it never
// collides with the agent's own git), and the files its commits changed since the fork point,
// remembered until HEAD or the base moves. Their union is what differs from the base, except a
// file its commits changed that the worktree has put back as it was: those few are checked.
import type { Git } from './git';
import { porcelainPaths } from './repo';

export class LiveCount {
  private committedFor = '';
  private fork = '';
  private committed = new Set<string>();

  constructor(
    private readonly git: Git,
    private readonly dir: string,
    private readonly base: string,
  ) {}

  async count(): Promise<number> {
    const opts = { cwd: this.dir, env: { GIT_OPTIONAL_LOCKS: '0' } };
    const [status, heads] = await Promise.all([
      this.git.ok(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], opts),
      // The base was checked to be a commit when the worktree was made (never an option).
      this.git.ok(['rev-parse', 'HEAD', this.base], opts),
    ]);
    const key = heads.trim().replace(/\s+/g, ' ');
    if (key !== this.committedFor) {
      const [head, base] = key.split(' ');
      this.fork = (await this.git.ok(['merge-base', base!, head!], opts)).trim();
      const names = await this.git.ok(['diff', '--no-renames', '--name-only', '-z', this.fork, head!, '--'], opts);
      this.committed = new Set(names.split('\0').filter(Boolean));
      this.committedFor = key;
    }
    const pending = new Set(porcelainPaths(status));
    const both = [...pending].filter((p) => this.committed.has(p));
    let restored = 0;
    if (both.length > 0) {
      // Changed by a commit and touched again since: differs from the base unless put back as it was.
      const still = await this.git.ok(['diff', '--no-renames', '--name-only', '-z', this.fork, '--', ...both.map((p) => `:(literal)${p}`)], opts);
      restored = both.length - still.split('\0').filter(Boolean).length;
    }
    return new Set([...pending, ...this.committed]).size - restored;
  }
}
