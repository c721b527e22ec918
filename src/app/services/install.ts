// Where Termio itself is installed (the checkout or the .app's Resources folder) and what it
// ships there: the one place that finds the package root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The folder that holds package.json, dist/, assets/, agents/ and node_modules/: the nearest
 *  folder above this file that has a package.json. This file runs from src/app/services (tests),
 *  from dist/app/services (the CLI), or bundled into dist/app/main.js and dist/app/host/hostMain.js
 *  (the app and the host; scripts/bundle.mjs), so its own depth below the root is not fixed. */
export const installRoot = findInstallRoot(__dirname);

function findInstallRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    // No package.json above (a copy without it): where this file sits unbundled, three down.
    if (dirname(dir) === dir) return resolve(from, '..', '..', '..');
  }
}

/** A file or folder Termio ships, by its path below the install root. */
export function installPath(...parts: string[]): string {
  return join(installRoot, ...parts);
}

let version: string | undefined;
/** Termio's version, from its package.json (read once). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(installPath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
