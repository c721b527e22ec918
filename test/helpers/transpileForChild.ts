// Child processes in unit tests (Node 20 cannot run TypeScript) load our sources through this:
// the named src files, and the src files they require, are transpiled to CommonJS in a temporary
// folder that resolves packages from the repository's node_modules, so a test needs no `npm run
// build` and no stale dist/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const repoRoot = resolve(__dirname, '..', '..');

export interface Transpiled {
  /** Absolute path of a transpiled file, given its repository path ('src/app/host/state/stateStore.ts'). */
  path(srcFile: string): string;
  dispose(): void;
}

export function transpileForChild(srcFiles: string[]): Transpiled {
  const out = mkdtempSync(join(tmpdir(), 'termio-child-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(out, 'node_modules'), 'dir');
  // The named files and every source file they require, relatively, in turn.
  const todo = srcFiles.map((f) => resolve(repoRoot, f));
  const done = new Set<string>();
  for (let abs = todo.pop(); abs !== undefined; abs = todo.pop()) {
    if (done.has(abs)) continue;
    done.add(abs);
    const js = ts.transpileModule(readFileSync(abs, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: abs,
    }).outputText;
    const target = join(out, relative(repoRoot, abs)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
    for (const [, spec] of js.matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)) {
      const base = resolve(dirname(abs), spec!);
      const found = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
      if (found) todo.push(found);
    }
  }
  return {
    path: (srcFile) => join(out, srcFile).replace(/\.ts$/, '.js'),
    dispose: () => rmSync(out, { recursive: true, force: true }),
  };
}
