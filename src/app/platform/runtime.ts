// Boots the Qt runtime before any NodeGUI import. macOS runs under qode, which already has Qt's
// loop; Linux runs in plain Node with native/qodeshim standing in for qode (it must be loaded
// with RTLD_GLOBAL before NodeGUI's addon, which links against qode's symbols).
import { constants } from 'node:os';
import { join } from 'node:path';
import { appRoot, withoutEntryPreload } from './launch';

export interface QtRuntime {
  /** Which runtime drives Qt's events. */
  kind: 'qode' | 'qodeshim';
  /** Detaches Qt from the Node loop so the process can exit. */
  stop(): void;
  /** Loop counters (qodeshim only): iterations of libuv seen and GLib dispatches. */
  stats(): { iterations: number; dispatches: number; fds: number; running: boolean } | null;
  /** Gives the heap's free memory back to the system (qodeshim only; see idleTrim.ts): whether any was. */
  trimMemory(): boolean;
}

interface QodeShim {
  setArgs(args: string[]): void;
  start(): void;
  stop(): void;
  stats(): { iterations: number; dispatches: number; fds: number; running: boolean };
  trim(): boolean;
}

let current: QtRuntime | null = null;

export function startQtRuntime(appName = 'termio'): QtRuntime {
  if (current) return current;
  const versions = process.versions as NodeJS.ProcessVersions & { qode?: string };
  if (versions.qode) {
    // Sessions and the login shell inherit this environment: drop qode's preload of our entry.
    const options = withoutEntryPreload(process.env.NODE_OPTIONS, join(appRoot, 'dist', 'app', 'main.js'));
    if (options) process.env.NODE_OPTIONS = options;
    else delete process.env.NODE_OPTIONS;
    require('@nodegui/nodegui');
    current = { kind: 'qode', stop: () => undefined, stats: () => null, trimMemory: () => false };
    return current;
  }
  if (process.platform !== 'linux') {
    throw new Error(`Termio on ${process.platform} must run under qode (npm start does that)`);
  }
  const shimPath = join(appRoot, 'native', 'qodeshim', 'build', 'Release', 'qodeshim.node');
  const mod: { exports: QodeShim } = { exports: {} as QodeShim };
  try {
    process.dlopen(mod, shimPath, constants.dlopen.RTLD_NOW | constants.dlopen.RTLD_GLOBAL);
  } catch (err) {
    throw new Error(`cannot load the Qt loop shim ${shimPath} (run npm start once to build it): ${(err as Error).message}`);
  }
  const shim = mod.exports;
  // Qt takes its WM_CLASS and application name from argv[0].
  shim.setArgs([appName]);
  // Termio paints with QPainter only. Without this Qt's xcb plugin loads GLX, and with it Mesa
  // and LLVM: about 60 MB of a ~195 MB window. Qt reads it once, while NodeGUI creates the
  // QApplication; it is removed again so the shells Termio starts do not inherit it.
  const glChoice = process.env.QT_XCB_GL_INTEGRATION;
  if (glChoice === undefined) process.env.QT_XCB_GL_INTEGRATION = 'none';
  require('@nodegui/nodegui');
  if (glChoice === undefined) delete process.env.QT_XCB_GL_INTEGRATION;
  shim.start();
  current = { kind: 'qodeshim', stop: () => shim.stop(), stats: () => shim.stats(), trimMemory: () => shim.trim() };
  return current;
}
