#!/usr/bin/env node
// Size check: no source file over 450 lines of code (generated code excepted) and no function over
// 60, so a class that grows a job per feature is split by job before it becomes one nobody can read.
// A line of code is one that holds part of a token: blank lines and lines holding only a comment do
// not count (a line inside a multi-line string does), so comments never have to be squeezed to fit
// and the formatter (prettier) settles line length. A function counts from its first line to its
// closing brace. Tokens come from the parser, not a bare scan, so a regex or a template literal's
// text is never mistaken for a comment or a string.
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

const isJsDoc = (node) => node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode;

/** The 0-based lines that hold code: every line a token (leading trivia excluded) touches. */
function codeLineSet(sf) {
  const lines = new Set();
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (node) => {
    if (isJsDoc(node) || node.kind === ts.SyntaxKind.EndOfFileToken) return;
    const children = node.getChildren(sf);
    if (children.length === 0) {
      const start = node.getStart(sf);
      if (node.end > start) for (let l = lineOf(start), last = lineOf(node.end - 1); l <= last; l++) lines.add(l);
    } else children.forEach(visit);
  };
  visit(sf);
  return lines;
}

const problems = [];
for (const file of walk(srcDir)) {
  const text = readFileSync(file, 'utf8');
  const where = relative(process.cwd(), file);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const code = codeLineSet(sf);
  if (code.size > MAX_FILE_LINES) problems.push(`${where}: ${code.size} lines of code (at most ${MAX_FILE_LINES}): split it by job`);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      let length = 0;
      for (let l = start; l <= end; l++) if (code.has(l)) length++;
      if (length > MAX_FUNCTION_LINES) problems.push(`${where}:${start + 1}: ${nameOf(node, sf)} is ${length} lines of code (at most ${MAX_FUNCTION_LINES})`);
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
