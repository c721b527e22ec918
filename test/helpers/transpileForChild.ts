// Child processes in unit tests (Node 20 cannot run TypeScript) load our sources through this:
// the named src files are transpiled to CommonJS in a temporary folder that resolves packages
// from the repository's node_modules, so a test needs no `npm run build` and no stale dist/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const repoRoot = resolve(__dirname, '..', '..');

export interface Transpiled {
  /** Absolute path of a transpiled file, given its repository path ('src/app/host/stateStore.ts'). */
  path(srcFile: string): string;
  dispose(): void;
}

export function transpileForChild(srcFiles: string[]): Transpiled {
  const out = mkdtempSync(join(tmpdir(), 'termio-child-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(out, 'node_modules'), 'dir');
  for (const f of srcFiles) {
    const abs = resolve(repoRoot, f);
    const js = ts.transpileModule(readFileSync(abs, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: abs,
    }).outputText;
    const target = join(out, relative(repoRoot, abs)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  return {
    path: (srcFile) => join(out, srcFile).replace(/\.ts$/, '.js'),
    dispose: () => rmSync(out, { recursive: true, force: true }),
  };
}
