// Where to point chokidar at an agent's store that may not exist yet (the agent's first run comes
// after the host started): its nearest existing ancestor, following only the path down to the
// store, with the depth counted from there. Shared by resume discovery and the history indexer.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';

export interface StoreWatchBase {
  /** The folder to watch: the store, or its nearest existing ancestor. */
  base: string;
  /** How many folders lie between base and the store (0 when the store exists). */
  levelsToRoot: number;
  /** chokidar's ignored test: outside the store, everything but the path down to it. Undefined when the store exists. */
  ignored: ((path: string) => boolean) | undefined;
}

export function storeWatchBase(root: string): StoreWatchBase {
  let base = root;
  while (!existsSync(base) && dirname(base) !== base) base = dirname(base);
  const levelsToRoot = base === root ? 0 : relative(base, root).split(sep).length;
  const ignored = (p: string) => {
    if (p === root || root.startsWith(p.endsWith(sep) ? p : p + sep)) return false;
    const rel = relative(root, p);
    return rel.startsWith('..') || isAbsolute(rel);
  };
  return { base, levelsToRoot, ignored: base === root ? undefined : ignored };
}
