// The fan-out groups the host keeps, in $TERMIO_HOME/state/fanouts.json beside the worktree
// records: each group's id, repository, base, prompt and members (agent, session, branch,
// worktree, last test run), and which member was merged. Kept like the worktrees they name, so a
// host restart (which resumes the members' sessions) still knows the group.
import { randomBytes } from 'node:crypto';
import { FanoutGroupSchema, type FanoutGroup, type FanoutMember } from '../../../protocol/control';
import { readEntries, writeEntries } from '../../services/entryFile';

export type Found<T> = { ok: true; value: T } | { ok: false; message: string };

export class FanoutGroups {
  private groups: FanoutGroup[] = [];

  constructor(
    private readonly file: string,
    private readonly warn: (message: string) => void,
  ) {
    this.load();
  }

  private load(): void {
    this.groups = readEntries(this.file, 'groups', FanoutGroupSchema, this.warn, {
      unreadable: "the fan-outs' worktrees and sessions are untouched",
      entry: 'a fan-out group',
    });
  }

  list(): FanoutGroup[] {
    return this.groups.map((g) => structuredClone(g));
  }

  /** Records a new group under a fresh id. */
  add(g: Omit<FanoutGroup, 'id'>): FanoutGroup {
    let id = randomBytes(4).toString('hex');
    while (this.groups.some((x) => x.id === id)) id = randomBytes(4).toString('hex');
    const group = { id, ...g };
    this.groups.push(group);
    this.save();
    return structuredClone(group);
  }

  /** A group by its id or a unique prefix of one. */
  find(ref: string): Found<FanoutGroup> {
    const exact = this.groups.find((g) => g.id === ref);
    const matches = exact ? [exact] : this.groups.filter((g) => g.id.startsWith(ref));
    if (matches.length === 1) return { ok: true, value: structuredClone(matches[0]!) };
    const known = this.groups.map((g) => g.id).join(', ') || 'none';
    return {
      ok: false,
      message: matches.length ? `'${ref}' matches ${matches.length} fan-out groups; give more of the id` : `no fan-out group '${ref}' (known: ${known})`,
    };
  }

  /** Changes one group (its test results, the merged member) and saves. */
  update(id: string, change: (g: FanoutGroup) => void): void {
    const g = this.groups.find((x) => x.id === id);
    if (!g) return;
    change(g);
    this.save();
  }

  private save(): void {
    writeEntries(this.file, 'groups', this.groups);
  }
}

/** A member by its branch, its session id or a unique prefix of one, or its agent when only one member runs it. */
export function findMember(g: FanoutGroup, ref: string): Found<FanoutMember> {
  const tries: Array<(m: FanoutMember) => boolean> = [
    (m) => m.branch === ref,
    (m) => m.sessionId === ref,
    (m) => m.sessionId.startsWith(ref),
    (m) => m.agent === ref,
  ];
  for (const match of tries) {
    const found = g.members.filter(match);
    if (found.length === 1) return { ok: true, value: found[0]! };
    if (found.length > 1)
      return {
        ok: false,
        message: `'${ref}' matches ${found.length} members of fan-out ${g.id}: name one by its branch (${found.map((m) => m.branch).join(', ')})`,
      };
  }
  return { ok: false, message: `fan-out ${g.id} has no member '${ref}' (its branches: ${g.members.map((m) => m.branch).join(', ')})` };
}
