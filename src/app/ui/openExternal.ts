// Opens a URL or file with the desktop's handler (`open` on macOS, `xdg-open` elsewhere),
// detached, so a slow browser never holds up the app. Returns false when it could not start.
// A folder opens in a code editor when one is installed (the review view's Open folder).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export function openExternal(target: string): boolean {
  try {
    const child = spawn(process.platform === 'darwin' ? 'open' : 'xdg-open', [target], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Editors that open a folder as a project from the command line, in the order they are tried. */
const FOLDER_EDITORS = ['code', 'cursor', 'zed', 'subl'];

/** Opens a folder in the first of those editors on PATH, else with the desktop's handler; names what it used (null: nothing started). */
export function openFolderInEditor(folder: string, path: string): string | null {
  const editor = FOLDER_EDITORS.find((cmd) => path.split(':').some((dir) => dir && isExecutable(join(dir, cmd))));
  if (!editor) return openExternal(folder) ? (process.platform === 'darwin' ? 'Finder' : 'the file manager') : null;
  try {
    const child = spawn(editor, [folder], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return editor;
  } catch {
    return null;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
