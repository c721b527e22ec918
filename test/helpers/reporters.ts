// The two hook reporters as tests run them: bin/termio-hook under this Node, and the native one
// compiled here from native/termio-hook/termio-hook.c (the current source, never a stale
// build/), once per source version, into the temporary folder.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { skipUnlessRequired } from './required';

const repoRoot = resolve(__dirname, '..', '..');
export const NATIVE_REPORTER_SOURCE = join(repoRoot, 'native', 'termio-hook', 'termio-hook.c');
export const NODE_REPORTER = join(repoRoot, 'bin', 'termio-hook');

export interface ReporterUnderTest {
  name: 'node' | 'native';
  /** The command line for `termio-hook <args…>`, or null when this reporter cannot run here. */
  argv: ((args: string[]) => string[]) | null;
  /** Why argv is null. */
  unavailable?: string;
}

let nativeBuild: { path: string } | { error: string } | undefined;

/** Compiles the native reporter (cached by source hash); an error value when there is no compiler. */
export function buildNativeReporter(): { path: string } | { error: string } {
  if (nativeBuild) return nativeBuild;
  const hash = createHash('sha256').update(readFileSync(NATIVE_REPORTER_SOURCE)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `termio-hook-native-${hash}`);
  // The name must contain "termio-hook": that is how uninstall knows our entries.
  const bin = join(dir, 'termio-hook');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const cc = process.env.CC || 'cc';
    const tmp = `${bin}.${process.pid}.tmp`;
    const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-o', tmp, NATIVE_REPORTER_SOURCE], { encoding: 'utf8' });
    // No compiler: the native reporter's tests skip with this reason, or fail with it under CI.
    if (r.error) return (nativeBuild = { error: skipUnlessRequired(`no C compiler (${cc}: ${r.error.message})`)! });
    // A compiler that runs but refuses our source is a bug in it: fail loudly, do not skip.
    if (r.status !== 0) throw new Error(`${cc} could not compile ${NATIVE_REPORTER_SOURCE}:\n${r.stderr}`);
    renameSync(tmp, bin);
  }
  return (nativeBuild = { path: bin });
}

export function reportersUnderTest(): ReporterUnderTest[] {
  const native = buildNativeReporter();
  return [
    { name: 'node', argv: (args) => [process.execPath, NODE_REPORTER, ...args] },
    'path' in native ? { name: 'native', argv: (args) => [native.path, ...args] } : { name: 'native', argv: null, unavailable: native.error },
  ];
}
