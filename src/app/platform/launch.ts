// How to start the Termio app process on this OS: plain Node on Linux (Qt is driven by our
// qode shim), NodeGUI's qode on macOS. Used by `npm start` and by `termio DIR`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installRoot } from '../host/install';

/** The checkout or install folder that holds dist/ and node_modules/. */
export const appRoot = installRoot;

export interface LaunchCommand {
  command: string;
  args: string[];
}

export function appLaunchCommand(extraArgs: string[] = []): LaunchCommand {
  const main = join(appRoot, 'dist', 'app', 'main.js');
  if (process.platform === 'darwin') {
    const qode = join(appRoot, 'node_modules', '@nodegui', 'qode', 'binaries', 'qode');
    if (!existsSync(qode)) throw new Error(`qode is not installed at ${qode}: run npm start once from the checkout`);
    return { command: qode, args: [main, ...extraArgs] };
  }
  return { command: process.execPath, args: [main, ...extraArgs] };
}
