#!/usr/bin/env node
// Layering check, the one rule table for what the per-layer tsconfig projects cannot say: which
// layers, packages and Node modules each layer may load. Folders follow processes:
//   src/protocol ← src/terminal/common ← src/terminal/node ← src/app/host   (termio-host alone;
//                  clients import terminal/common, and terminal/node by type only)
//   src/protocol ← src/app/services ← src/app/client ← src/app/{ui, cli} (and host, for the hub)
//   src/protocol ← src/app/present ← src/app/{ui, cli, web}           (pure words and rules)
// Nothing in ui/ or cli/ imports host/ (at run time or by type), only src/app/ui and
// src/app/platform touch Qt, clients never load node-pty or the emulator, and src/protocol and
// src/app/present import nothing with I/O. Inside termio-host, its rooms (src/app/host/<room>/) stand
// on floors and import only down (hostFloors below). (docs/architecture.md explains both.)
// Usage: node scripts/check-layers.mjs [srcDir]   (exit 1 and one line per violation)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { HOST_OWNED_WRITERS, WRITER_DOOR } from './lib/hostOwnedWriters.mjs';

const srcDir = resolve(process.argv[2] ?? 'src');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Which layer a file under srcDir belongs to. */
function layerOf(file) {
  // A trailing slash makes a folder import ('../platform') land in the folder's layer.
  const rel = `${relative(srcDir, file).split(sep).join('/')}/`;
  if (rel.startsWith('protocol/')) return 'protocol';
  if (rel.startsWith('terminal/common/')) return 'terminalCommon';
  if (rel.startsWith('terminal/')) return 'terminal';
  if (rel.startsWith('app/host/')) return 'host';
  if (rel.startsWith('app/services/')) return 'services';
  if (rel.startsWith('app/client/')) return 'client';
  if (rel.startsWith('app/present/')) return 'present';
  if (rel.startsWith('app/ui/')) return 'ui';
  if (rel.startsWith('app/platform/')) return 'platform';
  if (rel.startsWith('app/cli/')) return 'cli';
  if (rel.startsWith('app/web/')) return 'web';
  if (rel.startsWith('app/')) return 'app';
  return 'other';
}

// What each layer may import: other layers, and packages (by name prefix).
const allowed = {
  // re2js: the linear-time engine manifest status patterns run on (src/protocol/status/rulePattern.ts).
  protocol: { layers: ['protocol'], packages: ['zod', 'jsonc-parser', 're2js'], builtins: false },
  // The terminal's pure half: frame types, input encoding, modes, width, search, themes. The
  // emulator's package for its types alone (node/ creates the emulator).
  terminalCommon: { layers: ['protocol', 'terminalCommon'], packages: ['@xterm/'], builtins: false },
  terminal: { layers: ['protocol', 'terminalCommon', 'terminal'], packages: ['node-pty', '@xterm/'], builtins: true },
  // Node services every process may run: files, settings, the catalog, hook installers.
  services: { layers: ['protocol', 'services'], packages: ['chokidar', 'node-notifier', 'zod', 'jsonc-parser', 'smol-toml'], builtins: true },
  // Pure presenters: the browser page imports them too, so no Node and no packages.
  present: { layers: ['protocol', 'present'], packages: [], builtins: false },
  // The host connection; the terminal layer only for its types (the run-time rule below).
  client: { layers: ['protocol', 'terminalCommon', 'terminal', 'services', 'client'], packages: ['zod'], builtins: true },
  host: {
    layers: ['protocol', 'terminalCommon', 'terminal', 'services', 'client', 'present', 'host'],
    packages: ['chokidar', 'node-notifier', 'zod', 'jsonc-parser', 'smol-toml', 'ws', '@xterm/', 'web-push', 'better-sqlite3'],
    builtins: true,
  },
  // @modelcontextprotocol/sdk: `termio mcp`, the MCP server over the control socket.
  cli: { layers: ['protocol', 'services', 'client', 'present', 'cli', 'platform'], packages: ['zod', 'qrcode', '@modelcontextprotocol/sdk'], builtins: true },
  platform: { layers: ['protocol', 'services', 'platform'], packages: ['@nodegui/'], builtins: true },
  ui: {
    layers: ['protocol', 'terminalCommon', 'terminal', 'services', 'client', 'present', 'ui', 'platform'],
    packages: ['@nodegui/', 'qrcode'],
    builtins: true,
  },
  // The browser page: protocol's message types, the presenters and xterm.js, nothing of Node or the host.
  web: { layers: ['protocol', 'present', 'web'], packages: ['@xterm/xterm'], builtins: false },
  app: {
    layers: ['protocol', 'terminalCommon', 'terminal', 'services', 'client', 'present', 'host', 'ui', 'platform', 'app', 'cli'],
    packages: [],
    builtins: true,
  },
  other: {
    layers: ['protocol', 'terminalCommon', 'terminal', 'services', 'client', 'present', 'host', 'ui', 'platform', 'app', 'cli', 'other'],
    packages: [],
    builtins: true,
  },
};

// The host's rooms: each folder of src/app/host owns one job (its README.md says which), and the
// rooms stand on floors. A room may import its own files and the rooms on floors below its own,
// never one beside or above it, by type or at run time: so the state and the session list know
// nothing of status, status nothing of the doors, and only the doors (control/, server/) know every
// verb table. The files at the top of src/app/host (entry, process, composition, launcher) compose
// every room; a room may name a top file by type alone (erased at run time), never load one. A
// folder missing here is refused, so a new room gets its floor on purpose.
const hostFloors = [
  ['state', 'sessions'], // durable state; the live session list, feeds and waits
  ['resume', 'status'], // conversations in the agents' stores; live status from hooks and screens
  ['holders', 'notify', 'machines', 'worktrees'], // held ptys; notices; other machines; git worktrees
  ['history'], // the conversation index
  ['companion'], // the phone page (it searches the index)
  ['control'], // control.sock and the verb tables' router
  ['server'], // host.sock: the app's and the CLI's connections
];
const floorOf = new Map(hostFloors.flatMap((rooms, floor) => rooms.map((room) => [room, floor])));

/** The host room of a file under src/app/host: its first folder, or 'top' for a file at the top. */
function hostRoomOf(file) {
  const rel = relative(join(srcDir, 'app', 'host'), file).split(sep);
  return rel.length === 1 ? 'top' : rel[0];
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) yield p;
  }
}

const importRe =
  /(?:^|[^.\w])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[^.\w])import\s*['"]([^'"]+)['"]|(?:^|[^.\w])(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

const problems = [];
for (const file of walk(srcDir)) {
  const layer = layerOf(file);
  const rules = allowed[layer];
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const where = relative(process.cwd(), file);
    if (spec.startsWith('.')) {
      const target = layerOf(resolve(dirname(file), spec));
      if (!rules.layers.includes(target)) problems.push(`${where}: ${layer} may not import ${target} ('${spec}')`);
    } else if (builtins.has(spec)) {
      if (!rules.builtins) problems.push(`${where}: ${layer} is pure and may not import the Node module '${spec}'`);
    } else if (!rules.packages.some((p) => spec === p || spec.startsWith(p.endsWith('/') ? p : `${p}/`))) {
      problems.push(`${where}: ${layer} may not import the package '${spec}'`);
    }
  }
}

// Clients (the Qt app and the termio command) must never load a pty or the emulator at run time:
// those live in the session host. A type-only import is erased by the compiler, so it does not
// count; every other import is followed, through any layer, to what it finally loads.
const typeOnlyRe = /^\s*(?:import|export)\s+type\b|^\s*(?:import|export)\s*\{\s*(?:type\s+[\w$]+(?:\s+as\s+[\w$]+)?\s*,?\s*)+\}\s*from/;
function resolveSource(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const cand of [`${base}.ts`, join(base, 'index.ts'), base]) {
    try {
      if (statSync(cand).isFile()) return cand;
    } catch {
      // Try the next form.
    }
  }
  return null;
}
/** Each import of a file: its module string, and whether it is erased at run time (type-only). */
const statements = new Map();
function importsOf(file) {
  if (statements.has(file)) return statements.get(file);
  const found = [];
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  // One statement per match: from `import`/`export` to its module string.
  for (const m of text.matchAll(
    /(?:^|\n)\s*((?:import|export)\b[^;]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"])|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const statement = m[1] ?? '';
    found.push({ spec: m[2] ?? m[3] ?? m[4], typeOnly: Boolean(statement) && typeOnlyRe.test(statement) });
  }
  statements.set(file, found);
  return found;
}
function runtimeDeps(file) {
  const deps = importsOf(file).flatMap((i) => (i.typeOnly ? [] : [i.spec]));
  return deps;
}
const forbiddenAtRuntime = (spec) => spec === 'node-pty' || spec.startsWith('@xterm/headless');
// Shared state has one writer, the session host: settings.json (services/settings.ts) and the
// agents' hook, skill and MCP configs (services/agentConfigs.ts and the installers it drives).
// Clients read them (services/settingsFile.ts) and ask the host to change them; their code may
// not load a writing module at run time, but for the CLI's one door, cli/localWriter.ts, which
// writes only when no host is there (the list: hostOwnedWriters.mjs).
const hostOwnedWriters = new Set(HOST_OWNED_WRITERS);
const writerDoor = WRITER_DOOR;
const srcPath = (f) => relative(srcDir, f).split(sep).join('/');
for (const file of walk(srcDir)) {
  const layer = layerOf(file);
  if (!['ui', 'cli', 'client'].includes(layer) || !file.endsWith('.ts') || srcPath(file) === writerDoor) continue;
  const seen = new Set([file]);
  const queue = [[file, [relative(srcDir, file)]]];
  while (queue.length) {
    const [f, chain] = queue.shift();
    for (const spec of runtimeDeps(f)) {
      if (forbiddenAtRuntime(spec)) {
        problems.push(`${relative(process.cwd(), file)}: a client may not load '${spec}' at run time (through ${chain.join(' → ')})`);
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = resolveSource(f, spec);
      if (!target || seen.has(target) || srcPath(target) === writerDoor) continue;
      if (hostOwnedWriters.has(srcPath(target))) {
        const through = [...chain, srcPath(target)].join(' → ');
        problems.push(
          `${relative(process.cwd(), file)}: a client may not load ${srcPath(target)}, which writes state only the host writes (through ${through})`,
        );
        continue;
      }
      seen.add(target);
      queue.push([target, [...chain, relative(srcDir, target)]]);
    }
  }
}

// The host's rooms import down their floors (hostFloors above).
for (const file of walk(srcDir)) {
  if (layerOf(file) !== 'host' || !file.endsWith('.ts')) continue;
  const from = hostRoomOf(file);
  const where = relative(process.cwd(), file);
  if (from !== 'top' && !floorOf.has(from)) {
    problems.push(`${where}: src/app/host/${from}/ is no room of the host's (give it a floor in hostFloors, scripts/check-layers.mjs)`);
    continue;
  }
  for (const { spec, typeOnly } of importsOf(file)) {
    if (!spec.startsWith('.') || from === 'top') continue;
    const target = resolve(dirname(file), spec);
    if (layerOf(target) !== 'host') continue;
    const to = hostRoomOf(target);
    if (to === from || (to === 'top' && typeOnly)) continue;
    if (to === 'top') problems.push(`${where}: the host room ${from}/ may load no top file of the host, only name one by type ('${spec}')`);
    else if (!floorOf.has(to) || floorOf.get(to) >= floorOf.get(from)) {
      problems.push(`${where}: the host room ${from}/ may not import ${to}/, which is not on a floor below it ('${spec}')`);
    }
  }
}

// No import circles, by type or at run time: a circle means two modules are one concept split in
// two, or a shared type sits in the wrong one. Tarjan's strongly connected components over every
// relative import in the tree.
{
  const graph = new Map();
  const anyImport = /(?:^|\n)\s*(?:import|export)\b[^;]*?from\s*['"]([^'"]+)['"]|(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const file of walk(srcDir)) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    const deps = new Set();
    for (const m of text.matchAll(anyImport)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      const target = resolveSource(file, spec);
      if (target && target.endsWith('.ts')) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(relative(srcDir, w));
    } while (w !== v);
    if (component.length > 1) problems.push(`import circle: ${component.sort().join(' ↔ ')}`);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
}

if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`layering: ${problems.length} violation(s)`);
  process.exit(1);
}
console.log('layering: ok');
