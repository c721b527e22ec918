// Pinned-family record lookup (docs/protocol.md, "Resume"): does the agent's store hold the record of
// a conversation? storeRoot (~ expanded) is searched breadth-first for an entry storeMatch names,
// to a bounded depth and a bounded number of folders, without following symlinked folders.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expandHome } from '../../../protocol/homePath';
import type { PinnedResumeInput } from '../../../protocol/resumePlan';
import { parseStoreMatch, storeMatcher } from '../../../protocol/resumeStoreMatch';

/**
 * How far below storeRoot a record may sit. Real stores: Copilot root/<id>/ (1), Claude
 * root/<cwd>/<id>.jsonl (2), Gemini root/<slug>/chats/<file> and Cursor
 * root/<slug>/agent-transcripts/<id>/ (3); 4 leaves one level of slack.
 */
export const MAX_STORE_DEPTH = 4;

/**
 * Most folders one lookup lists. A store with thousands of project folders is still searched
 * whole (each listing is ~0.05 ms); past this the answer is "not found, search truncated".
 */
export const MAX_STORE_DIRS = 20_000;

export type PinnedLookup =
  | { kind: 'found'; path: string; dirsSearched: number }
  | { kind: 'absent'; dirsSearched: number; truncated: boolean; rootMissing: boolean }
  | { kind: 'lookupError'; message: string };

export interface PinnedLookupOptions {
  home: string;
  maxDepth?: number;
  maxDirs?: number;
}

/** Finds the record of conversation id below the pinned store; user-caused failures are values. */
export async function findPinnedRecord(
  spec: Pick<PinnedResumeInput, 'storeRoot' | 'storeMatch'>,
  id: string,
  opts: PinnedLookupOptions,
): Promise<PinnedLookup> {
  const rule = parseStoreMatch(spec.storeMatch);
  if ('message' in rule) return { kind: 'lookupError', message: rule.message };
  const matcher = storeMatcher(rule, id);
  if ('message' in matcher) return { kind: 'lookupError', message: matcher.message };
  const root = expandHome(spec.storeRoot, opts.home);
  if (!root.startsWith('/'))
    return { kind: 'lookupError', message: `storeRoot ${JSON.stringify(spec.storeRoot)}: expected an absolute path or one starting with "~/"` };
  const maxDepth = opts.maxDepth ?? MAX_STORE_DEPTH;
  const maxDirs = opts.maxDirs ?? MAX_STORE_DIRS;

  let queue: string[] = [root];
  let dirsSearched = 0;
  for (let depth = 0; depth < maxDepth && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      if (dirsSearched >= maxDirs) return { kind: 'absent', dirsSearched, truncated: true, rootMissing: false };
      dirsSearched++;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        if (dir === root) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', dirsSearched, truncated: false, rootMissing: true };
          return { kind: 'lookupError', message: `storeRoot ${root} could not be read (${code ?? (e as Error).message})` };
        }
        continue; // A folder vanishing or closed to us below the root is not the record.
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (matcher.test(entry.name) && inParents(root, dir, matcher.parents)) {
          const kind = entry.isSymbolicLink() ? await kindOf(path) : entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : null;
          if (kind === matcher.kind) return { kind: 'found', path, dirsSearched };
        }
        if (entry.isDirectory()) next.push(path);
      }
    }
    queue = next;
  }
  return { kind: 'absent', dirsSearched, truncated: false, rootMissing: false };
}

/** Whether dir (below root) ends in the literal folders a storeMatch names before its entry. */
function inParents(root: string, dir: string, parents: string[]): boolean {
  if (parents.length === 0) return true;
  const rel = dir === root ? [] : dir.slice(root.length + 1).split('/');
  return rel.length >= parents.length && parents.every((p, i) => rel[rel.length - parents.length + i] === p);
}

async function kindOf(path: string): Promise<'dir' | 'file' | null> {
  try {
    const st = await stat(path);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}
