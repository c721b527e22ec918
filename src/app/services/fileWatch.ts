// One file's changes, hand edits included: its folder is watched (editors replace a file on save,
// which a watch on the file itself would lose), and a burst of writes is read once it has ended.
import { mkdirSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Disposable } from '../../protocol/events';

/** Editors write in several steps; read once they have finished (50 ms is well under a person's
 *  notice and well over an editor's write burst). */
const SETTLE_MS = 50;

/** Calls `changed` once a burst of changes to `file` has settled, until disposed. */
export function watchFile(file: string, changed: () => void): Disposable {
  mkdirSync(dirname(file), { recursive: true });
  const name = basename(file);
  let timer: NodeJS.Timeout | null = null;
  const watcher = watch(dirname(file), (_event, changedName) => {
    if (changedName !== null && changedName !== name) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      changed();
    }, SETTLE_MS);
  });
  return {
    dispose: () => {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
