// Termio.app's expected layout, and the check that a built bundle has it: qode as the main
// executable with qode.json beside it, the app and its node_modules under Resources, every file
// that must run marked executable, and an Info.plist (parsed, not grepped) with the keys macOS
// reads. Runs anywhere Node runs, so the bundle tree can be built and checked without a Mac.
//
//   node scripts/lib/macBundle.mjs check Termio.app [version]   prints problems, exits 1 if any
//   node scripts/lib/macBundle.mjs icns PNG OUT                  wraps a 256 px PNG as an .icns
//
// The plist parser is ours rather than an npm package: Info.plist uses a small subset of the
// XML format (dict, key, string, true/false, integer, real, array), the parser is strict about
// that subset so a typo fails the check instead of being skipped, and a build script that runs
// from a fresh checkout is better off with no dependency of its own.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnHelpers } from './nodePtyHelper.mjs';

/** NodeGUI 0.74's Qt 6.10 runs on macOS 13 and later, qode's Node 24 on 13.5 and later. */
export const MIN_MACOS = '13.5';
export const BUNDLE_ID = 'dev.termio.app';
/** The bundle's main executable: qode itself, as nodegui/packer lays it out. */
export const MAIN_EXECUTABLE = 'qode';
/** Where the app lives inside the bundle, and its entry point relative to that. */
export const APP_DIR = 'Contents/Resources/app';
export const APP_MAIN = 'dist/app/main.js';
/** The compiled hook reporter, relative to the app folder (what hookInstaller looks for). */
export const HOOK_REPORTER = 'native/termio-hook/build/termio-hook';

// ---- plist (XML subset) -----------------------------------------------------------------

class PlistError extends Error {}

/** Parses an XML property list into plain values; throws with the offset of what it cannot read. */
export function parsePlist(text) {
  let pos = 0;
  const fail = (what) => {
    const line = text.slice(0, pos).split('\n').length;
    throw new PlistError(`Info.plist line ${line}: ${what}`);
  };
  const skipSpace = () => {
    for (;;) {
      const m = /^\s+/.exec(text.slice(pos));
      if (m) pos += m[0].length;
      if (text.startsWith('<!--', pos)) {
        const end = text.indexOf('-->', pos);
        if (end < 0) fail('unterminated comment');
        pos = end + 3;
        continue;
      }
      return;
    }
  };
  const tag = () => {
    skipSpace();
    const m = /^<(\/?)([A-Za-z][\w-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/.exec(text.slice(pos));
    if (!m) fail(`expected a tag, found ${JSON.stringify(text.slice(pos, pos + 20))}`);
    pos += m[0].length;
    return { name: m[2], closing: m[1] === '/', empty: m[4] === '/' };
  };
  const textUntil = (name) => {
    const end = text.indexOf(`</${name}>`, pos);
    if (end < 0) fail(`<${name}> is not closed`);
    const raw = text.slice(pos, end);
    if (raw.includes('<')) fail(`<${name}> holds markup`);
    pos = end + name.length + 3;
    return raw.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e) =>
      e === 'lt'
        ? '<'
        : e === 'gt'
          ? '>'
          : e === 'amp'
            ? '&'
            : e === 'quot'
              ? '"'
              : e === 'apos'
                ? "'"
                : String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
    );
  };
  const value = (open) => {
    const t = open ?? tag();
    if (t.closing) fail(`unexpected </${t.name}>`);
    switch (t.name) {
      case 'true':
      case 'false':
        if (!t.empty) fail(`<${t.name}> must be written <${t.name}/>`);
        return t.name === 'true';
      case 'string':
        return t.empty ? '' : textUntil('string');
      case 'integer': {
        const s = textUntil('integer').trim();
        if (!/^[-+]?\d+$/.test(s)) fail(`<integer> holds ${JSON.stringify(s)}`);
        return Number(s);
      }
      case 'real': {
        const s = textUntil('real').trim();
        if (!Number.isFinite(Number(s)) || s === '') fail(`<real> holds ${JSON.stringify(s)}`);
        return Number(s);
      }
      case 'array': {
        const items = [];
        if (t.empty) return items;
        for (;;) {
          const next = tag();
          if (next.closing && next.name === 'array') return items;
          items.push(value(next));
        }
      }
      case 'dict': {
        const dict = {};
        if (t.empty) return dict;
        for (;;) {
          const k = tag();
          if (k.closing && k.name === 'dict') return dict;
          if (k.name !== 'key' || k.closing || k.empty) fail(`expected <key> in <dict>, found <${k.closing ? '/' : ''}${k.name}>`);
          const key = textUntil('key');
          if (Object.hasOwn(dict, key)) fail(`key ${key} appears twice`);
          dict[key] = value();
        }
      }
      default:
        return fail(`<${t.name}> is not a plist value this parser reads`);
    }
  };
  // Prolog: the XML declaration and the DOCTYPE.
  skipSpace();
  if (text.startsWith('<?xml', pos)) pos = text.indexOf('?>', pos) + 2;
  skipSpace();
  if (text.startsWith('<!DOCTYPE', pos)) pos = text.indexOf('>', pos) + 1;
  const root = tag();
  if (root.name !== 'plist' || root.closing) fail('the document is not a <plist>');
  const result = value();
  const close = tag();
  if (!close.closing || close.name !== 'plist') fail('<plist> holds more than one value');
  skipSpace();
  if (pos !== text.length) fail('text after </plist>');
  return result;
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

// ---- the bundle -------------------------------------------------------------------------

const isExecutable = (file) => existsSync(file) && statSync(file).isFile() && (statSync(file).mode & 0o111) === 0o111;

/** Every way the bundle at app differs from what macOS and Termio need; empty when it is right. */
export function checkMacBundle(app, expectedVersion) {
  const problems = [];
  const contents = join(app, 'Contents');
  const plistFile = join(contents, 'Info.plist');
  let plist = null;
  try {
    plist = parsePlist(readFileSync(plistFile, 'utf8'));
    if (plist === null || typeof plist !== 'object' || Array.isArray(plist)) throw new PlistError('Info.plist: the top value is not a <dict>');
  } catch (e) {
    problems.push(e instanceof PlistError ? e.message : `cannot read ${plistFile}: ${e.message}`);
    plist = null;
  }
  if (plist) {
    const want = (key, ok, what) => {
      if (!ok(plist[key])) problems.push(`Info.plist: ${key} is ${JSON.stringify(plist[key])}, expected ${what}`);
    };
    const str = (v) => typeof v === 'string' && v.length > 0;
    want('CFBundleExecutable', (v) => v === MAIN_EXECUTABLE, JSON.stringify(MAIN_EXECUTABLE));
    want('CFBundleIdentifier', (v) => v === BUNDLE_ID, JSON.stringify(BUNDLE_ID));
    want('CFBundleName', (v) => v === 'Termio', '"Termio"');
    want('CFBundlePackageType', (v) => v === 'APPL', '"APPL"');
    want('CFBundleInfoDictionaryVersion', (v) => v === '6.0', '"6.0"');
    want('NSPrincipalClass', (v) => v === 'NSApplication', '"NSApplication"');
    want('NSHighResolutionCapable', (v) => v === true, 'true');
    want('CFBundleIconFile', str, 'an icon name');
    want('LSMinimumSystemVersion', (v) => str(v) && /^\d+(\.\d+)*$/.test(v) && compareVersions(v, MIN_MACOS) >= 0, `${MIN_MACOS} or later`);
    for (const key of ['CFBundleShortVersionString', 'CFBundleVersion']) {
      want(key, (v) => str(v) && (expectedVersion === undefined || v === expectedVersion), expectedVersion ? JSON.stringify(expectedVersion) : 'a version');
    }
    if (str(plist.CFBundleIconFile)) {
      const icon = join(contents, 'Resources', plist.CFBundleIconFile.endsWith('.icns') ? plist.CFBundleIconFile : `${plist.CFBundleIconFile}.icns`);
      if (!existsSync(icon) || readFileSync(icon).subarray(0, 4).toString('latin1') !== 'icns')
        problems.push(`the icon ${icon} is missing or not an .icns file`);
    }
  }
  const macos = join(contents, 'MacOS');
  const exe = join(macos, MAIN_EXECUTABLE);
  if (!isExecutable(exe)) problems.push(`the main executable ${exe} is missing or not executable`);
  const qodeJson = join(macos, 'qode.json');
  const appMain = join(app, APP_DIR, APP_MAIN);
  try {
    const cfg = JSON.parse(readFileSync(qodeJson, 'utf8'));
    if (typeof cfg.distPath !== 'string' || resolve(macos, cfg.distPath) !== resolve(appMain))
      problems.push(`${qodeJson}: distPath is ${JSON.stringify(cfg.distPath)}, expected the path of ${appMain} relative to Contents/MacOS`);
  } catch (e) {
    problems.push(`cannot read ${qodeJson}: ${e.message}`);
  }
  if (!existsSync(appMain)) problems.push(`the app's entry point ${appMain} is missing`);
  const appDir = join(app, APP_DIR);
  for (const rel of [
    'package.json',
    'agents/claude.json',
    'assets/brand/termio-256.png',
    'node_modules/@nodegui/nodegui/package.json',
    'node_modules/node-pty/package.json',
  ]) {
    if (!existsSync(join(appDir, rel))) problems.push(`${join(APP_DIR, rel)} is missing`);
  }
  for (const dev of ['vitest', 'typescript', 'eslint']) {
    if (existsSync(join(appDir, 'node_modules', dev))) problems.push(`the development dependency ${dev} was shipped in ${join(APP_DIR, 'node_modules')}`);
  }
  const ptyDir = join(appDir, 'node_modules', 'node-pty');
  const helpers = spawnHelpers(ptyDir).filter((f) => f.includes('darwin') || f.includes(`${join('build', 'Release')}`));
  if (existsSync(ptyDir) && helpers.length === 0) problems.push(`node-pty in the bundle has no spawn-helper for macOS`);
  for (const f of helpers) if (!isExecutable(f)) problems.push(`node-pty's ${f} is not executable (every session would fail with "posix_spawnp failed")`);
  const reporter = join(appDir, HOOK_REPORTER);
  if (!isExecutable(reporter)) problems.push(`the compiled hook reporter ${reporter} is missing or not executable`);
  return problems;
}

/** An .icns holding one 256 px PNG ('ic08'): enough for Finder and the Dock where iconutil is missing. */
export function icnsFromPng(png) {
  const ICNS_HEADER = 8;
  const ENTRY_HEADER = 8;
  const out = Buffer.alloc(ICNS_HEADER + ENTRY_HEADER + png.length);
  out.write('icns', 0, 'latin1');
  out.writeUInt32BE(out.length, 4);
  out.write('ic08', ICNS_HEADER, 'latin1');
  out.writeUInt32BE(ENTRY_HEADER + png.length, ICNS_HEADER + 4);
  png.copy(out, ICNS_HEADER + ENTRY_HEADER);
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [cmd, a, b] = process.argv.slice(2);
  if (cmd === 'check' && a) {
    const problems = checkMacBundle(a, b);
    for (const p of problems) process.stderr.write(`bundle check: ${p}\n`);
    if (problems.length) process.exit(1);
    process.stdout.write(`bundle check: ${a} has the expected layout, Info.plist keys and executable bits\n`);
  } else if (cmd === 'icns' && a && b) {
    writeFileSync(b, icnsFromPng(readFileSync(a)));
  } else {
    process.stderr.write(`usage: ${dirname(process.argv[1])}/macBundle.mjs check APP [VERSION] | icns PNG OUT\n`);
    process.exit(2);
  }
}
