#!/usr/bin/env node
// Size check: no source file over 450 lines (generated code excepted) and no function over 60
// lines, so a class that grows a job per feature is split by job before it becomes one nobody can
// read. Counts lines as an editor shows them, a function from its first line to its closing brace.
// Usage: node scripts/check-size.mjs [srcDir]   (exit 1 and one line per file or function over)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');
export const MAX_FILE_LINES = 450;
export const MAX_FUNCTION_LINES = 60;

const srcDir = resolve(process.argv[2] ?? 'src');

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') && !name.includes('.generated.')) yield p;
  }
}

function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  return '(anonymous function)';
}

const problems = [];
for (const file of walk(srcDir)) {
  const text = readFileSync(file, 'utf8');
  const where = relative(process.cwd(), file);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) problems.push(`${where}: ${lines} lines (at most ${MAX_FILE_LINES}): split it by job`);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) problems.push(`${where}:${start + 1}: ${nameOf(node, sf)} is ${length} lines (at most ${MAX_FUNCTION_LINES})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`size: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log('size: ok');
