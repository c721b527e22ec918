// Where Termio itself is installed (the checkout or the .app's Resources folder) and what it
// ships there: the one place that knows this file's depth below the package root.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The folder that holds package.json, dist/, assets/, agents/ and node_modules/. Compiled, this
 *  file is dist/app/services/install.js; from source (tests) it is src/app/services/install.ts: both are
 *  three folders below the root. */
export const installRoot = resolve(__dirname, '..', '..', '..');

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
