// The layering check itself: it passes on the real tree and names each kind of violation.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(__dirname, '..', '..');
const check = (src: string) => spawnSync(process.execPath, [join(repo, 'scripts', 'check-layers.mjs'), src], { encoding: 'utf8' });

describe('layering check', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function tree(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), 'layers-'));
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), text);
    }
    return dir;
  }

  it('passes on this repository', () => {
    dir = mkdtempSync(join(tmpdir(), 'layers-'));
    const r = check(join(repo, 'src'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('rejects I/O in protocol, Qt outside ui/platform, and imports pointing right', () => {
    const r = check(
      tree({
        'protocol/a.ts': "import { readFileSync } from 'node:fs';\nimport { z } from 'zod';\n",
        'protocol/b.ts': "import * as path from 'path';\n",
        'terminal/t.ts': "import { QWidget } from '@nodegui/nodegui';\nimport { x } from '../app/host/h';\n",
        'app/host/h.ts': "export const x = require('../ui/view');\n",
        'app/ui/view.ts': "import { QWidget } from '@nodegui/nodegui';\nimport { y } from '../services';\n",
        'app/platform/p.ts': "import '@nodegui/nodegui';\n",
        'terminal/common/c.ts': "import { performance } from 'node:perf_hooks';\nimport { Session } from '../node/session';\n",
        'terminal/node/session.ts': 'export class Session {}\n',
      }),
    );
    expect(r.status).toBe(1);
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => l.replace(/^.*?(protocol|terminal|app)\//, '$1/'));
    expect(lines).toEqual(
      expect.arrayContaining([
        "protocol/a.ts: protocol is pure and may not import the Node module 'node:fs'",
        "protocol/b.ts: protocol is pure and may not import the Node module 'path'",
        "terminal/t.ts: terminal may not import the package '@nodegui/nodegui'",
        "terminal/t.ts: terminal may not import host ('../app/host/h')",
        "app/host/h.ts: host may not import ui ('../ui/view')",
        "terminal/common/c.ts: terminalCommon is pure and may not import the Node module 'node:perf_hooks'",
        "terminal/common/c.ts: terminalCommon may not import terminal ('../node/session')",
      ]),
    );
    expect(r.stderr).toContain('layering: 7 violation(s)');
  });
});

describe('layering check: what the app loads at run time', () => {
  it('rejects a ui file whose runtime imports reach node-pty or the emulator through the client layer, and allows type-only ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const put = (f: string, text: string) => {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), text);
      };
      put('terminal/node/session.ts', "import * as pty from 'node-pty';\nimport { Terminal } from '@xterm/headless';\nexport class Session {}\n");
      put('terminal/common/theme.ts', 'export const darkTheme = {};\n');
      put('app/client/launcher.ts', "import { Session } from '../../terminal/node/session';\nexport const launch = () => new Session();\n");
      put('app/services/paths.ts', 'export const paths = {};\n');
      put('app/ui/bad.ts', "import { launch } from '../client/launcher';\nvoid launch;\n");
      put(
        'app/ui/good.ts',
        "import type { Session } from '../../terminal/node/session';\nimport { type Session as S2 } from '../../terminal/node/session';\nimport { darkTheme } from '../../terminal/common/theme';\nimport { paths } from '../services/paths';\nexport type X = Session | S2;\nvoid darkTheme; void paths;\n",
      );
      const r = check(dir);
      expect(r.status).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines.filter((l) => l.includes('good.ts'))).toEqual([]);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /app\/ui\/bad\.ts: a client may not load 'node-pty' at run time \(through app\/ui\/bad\.ts → app\/client\/launcher\.ts → terminal\/node\/session\.ts\)/,
          ),
          expect.stringMatching(/app\/ui\/bad\.ts: a client may not load '@xterm\/headless' at run time/),
        ]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('layering check: the CLI', () => {
  it('rejects a CLI file that imports the Qt client or the terminal layer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const put = (f: string, text: string) => {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), text);
      };
      put('app/cli/c.ts', "import { x } from '../ui/view';\nimport { Session } from '../../terminal';\nimport * as pty from 'node-pty';\n");
      put('app/ui/view.ts', 'export const x = 1;\n');
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("cli may not import ui ('../ui/view')");
      expect(r.stderr).toContain("cli may not import terminal ('../../terminal')");
      expect(r.stderr).toContain("cli may not import the package 'node-pty'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('layering check: clients and the host folder', () => {
  it('rejects a ui or cli file that imports host/, at run time or by type, and a presenter that uses Node', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const put = (f: string, text: string) => {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), text);
      };
      put('app/host/registry.ts', 'export class Registry {}\n');
      put('app/ui/a.ts', "import { Registry } from '../host/registry';\nvoid Registry;\n");
      put('app/cli/b.ts', "import type { Registry } from '../host/registry';\nexport type R = Registry;\n");
      put('app/present/words.ts', "import { join } from 'node:path';\nvoid join;\n");
      put('app/client/conn.ts', "import { Registry } from '../host/registry';\nvoid Registry;\n");
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("app/ui/a.ts: ui may not import host ('../host/registry')");
      expect(r.stderr).toContain("app/cli/b.ts: cli may not import host ('../host/registry')");
      expect(r.stderr).toContain("app/present/words.ts: present is pure and may not import the Node module 'node:path'");
      expect(r.stderr).toContain("app/client/conn.ts: client may not import host ('../host/registry')");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('layering check: the host rooms', () => {
  it('rejects an import across host rooms that does not run down the floors, and a room loading a top file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const put = (f: string, text: string) => {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), text);
      };
      put('app/host/host.ts', "import { Store } from './state/store';\nexport class Host {}\nvoid Store;\n");
      put('app/host/state/store.ts', 'export class Store {}\n');
      put('app/host/sessions/registry.ts', 'export class Registry {}\n');
      put('app/host/status/tracker.ts', "import type { Registry } from '../sessions/registry';\nexport type T = Registry;\n");
      // Down the floors, and a top file named by type: allowed.
      put(
        'app/host/server/socket.ts',
        "import type { Host } from '../host';\nimport { Registry } from '../sessions/registry';\nexport class Server {}\nexport type H = Host;\nvoid Registry;\n",
      );
      // Up a floor (by type too), beside on the same floor, and a top file loaded at run time: refused.
      put('app/host/state/bad.ts', "import type { T } from '../status/tracker';\nexport type B = T;\n");
      put('app/host/sessions/beside.ts', "import { Store } from '../state/store';\nvoid Store;\n");
      put('app/host/status/loadsTop.ts', "import { Host } from '../host';\nvoid Host;\n");
      put('app/host/attic/x.ts', 'export const x = 1;\n');
      const r = check(dir);
      expect(r.status).toBe(1);
      const lines = r.stderr
        .trim()
        .split('\n')
        .map((l) => l.replace(/^.*?app\//, 'app/'));
      expect(lines).toEqual([
        "app/host/attic/x.ts: src/app/host/attic/ is no room of the host's (give it a floor in hostFloors, scripts/check-layers.mjs)",
        "app/host/sessions/beside.ts: the host room sessions/ may not import state/, which is not on a floor below it ('../state/store')",
        "app/host/state/bad.ts: the host room state/ may not import status/, which is not on a floor below it ('../status/tracker')",
        "app/host/status/loadsTop.ts: the host room status/ may load no top file of the host, only name one by type ('../host')",
        'layering: 4 violation(s)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('knows every folder of the real host', () => {
    const r = check(join(repo, 'src'));
    expect(r.stderr).not.toContain('no room of the host');
    expect(r.status).toBe(0);
  });
});

describe('layering check: import circles', () => {
  it('rejects a circle of imports, type-only ones included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const put = (f: string, text: string) => {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), text);
      };
      put('app/host/a.ts', "import { b } from './b';\nexport const a = b;\n");
      put('app/host/b.ts', "import type { C } from './c';\nexport const b = 1;\nexport type B = C;\n");
      put('app/host/c.ts', "import type { a } from './a';\nexport type C = typeof a;\n");
      put('app/host/d.ts', "import { b } from './b';\nexport const d = b;\n");
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('import circle: app/host/a.ts ↔ app/host/b.ts ↔ app/host/c.ts');
      expect(r.stderr).not.toContain('d.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The compiler enforces the same direction: each layer is a tsconfig project that references only
// the layers below it, so `tsc -b` fails on an import that points the wrong way. One scratch copy of
// src/ is built once; each case adds one wrong import, rebuilds (incrementally), and restores the file.
// (What references cannot say — the CLI reaching the terminal layer through host's reference —
// is the rule table's job, tested above.)
/** The first, cold `tsc -b` of all of src/ took 26 s in a quiet full run on a 2-core machine and
 *  66 s beside two busy loops; each rebuild after one wrong import is shorter. Kept at about three
 *  times the slowest seen, for the first build and for each rebuild. */
const TSC_BUILD_BOUND_MS = 180_000;

describe('layering by the compiler', () => {
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  let dir: string;
  const build = (project: string) => spawnSync(process.execPath, [tsc, '-b', join(dir, 'src', project)], { encoding: 'utf8', cwd: dir });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'layers-tsc-'));
    cpSync(join(repo, 'src'), join(dir, 'src'), { recursive: true });
    for (const f of ['tsconfig.base.json', 'tsconfig.layer.json']) cpSync(join(repo, f), join(dir, f));
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'builds the untouched copy, so the failures below are the wrong imports',
    () => {
      const r = build('app/cli');
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    },
    TSC_BUILD_BOUND_MS,
  );

  it.each([
    ['protocol → terminal', 'protocol/homePath.ts', "import '../terminal/common/theme';", 'protocol', 'src/terminal/common/theme.ts'],
    ['terminal → host', 'terminal/node/launch.ts', "import '../../app/host/hostMain';", 'terminal/node', 'src/app/host/hostMain.ts'],
    ['terminal common → node', 'terminal/common/theme.ts', "import '../node/session';", 'terminal/common', 'src/terminal/node/session.ts'],
    ['services → host', 'app/services/paths.ts', "import '../host/hostMain';", 'app/services', 'src/app/host/hostMain.ts'],
    ['host → ui', 'app/host/hostMain.ts', "import '../ui/svgTint';", 'app/host', 'src/app/ui/svgTint.ts'],
    ['cli → ui', 'app/cli/openDir.ts', "import '../ui/svgTint';", 'app/cli', 'src/app/ui/svgTint.ts'],
    ['ui → host', 'app/ui/svgTint.ts', "import '../host/hostMain';", 'app/ui', 'src/app/host/hostMain.ts'],
    ['cli → host', 'app/cli/openDir.ts', "import '../host/hostMain';", 'app/cli', 'src/app/host/hostMain.ts'],
    ['present → services', 'app/present/fuzzy.ts', "import '../services/paths';", 'app/present', 'src/app/services/paths.ts'],
  ])(
    'tsc -b rejects %s',
    (_name, file, line, project, imported) => {
      const target = join(dir, 'src', file);
      const original = readFileSync(target, 'utf8');
      writeFileSync(target, `${line}\n${original}`);
      try {
        const r = build(project);
        expect(r.status).not.toBe(0);
        // TS6307: the imported file is in neither this project nor one it references.
        expect(r.stdout).toMatch(/error TS6307/);
        expect(r.stdout).toContain(imported);
      } finally {
        writeFileSync(target, original);
      }
    },
    TSC_BUILD_BOUND_MS,
  );
});
