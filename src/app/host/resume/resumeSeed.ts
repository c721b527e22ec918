// The pinned family's `seed: "session-file"`: before the first launch with `create`, Termio writes
// the session record the agent expects to find for the id it is given (an agent such as Pi checks
// a pinned id against its store at start-up and complains when nothing is there). The record is
// the one storeMatch names, right below storeRoot (and its literal subfolders): a file holding one
// JSON header line (type "session", id, timestamp, cwd), or a folder for a "dir:" match.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandHome } from '../../../protocol/homePath';
import { parseStoreMatch } from '../../../protocol/resumeStoreMatch';

export type SeedResult = { kind: 'seeded'; path: string } | { kind: 'exists'; path: string } | { kind: 'seedError'; message: string };

/** The seeded record's path, a `*` in the name standing for the launch time (file-name safe). */
export function seedPath(spec: { storeRoot: string; storeMatch: string }, id: string, home: string, at: Date): string | { message: string } {
  const rule = parseStoreMatch(spec.storeMatch);
  if ('message' in rule) return { message: rule.message };
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  const name = rule.parts.map((p) => ('lit' in p ? p.lit : 'star' in p ? stamp : p.prefix === undefined ? id : id.slice(0, p.prefix))).join('');
  return join(expandHome(spec.storeRoot, home), ...rule.parents, name);
}

export function seedSessionFile(spec: { storeRoot: string; storeMatch: string }, id: string, cwd: string, home: string, at = new Date()): SeedResult {
  const path = seedPath(spec, id, home, at);
  if (typeof path !== 'string') return { kind: 'seedError', message: path.message };
  if (existsSync(path)) return { kind: 'exists', path };
  try {
    if (spec.storeMatch.startsWith('dir:')) mkdirSync(path, { recursive: true });
    else {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, `${JSON.stringify({ type: 'session', id, timestamp: at.toISOString(), cwd })}\n`, { flag: 'wx' });
    }
    return { kind: 'seeded', path };
  } catch (e) {
    return { kind: 'seedError', message: `could not write the session record ${path}: ${(e as Error).message}` };
  }
}
