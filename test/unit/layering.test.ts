// The layering check itself: it passes on the real tree and names each kind of violation.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

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
        'app/ui/view.ts': "import { QWidget } from '@nodegui/nodegui';\nimport { y } from '../host';\n",
        'app/platform/p.ts': "import '@nodegui/nodegui';\n",
      }),
    );
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n').map((l) => l.replace(/^.*?(protocol|terminal|app)\//, '$1/'));
    expect(lines).toEqual(
      expect.arrayContaining([
        "protocol/a.ts: protocol is pure and may not import the Node module 'node:fs'",
        "protocol/b.ts: protocol is pure and may not import the Node module 'path'",
        "terminal/t.ts: terminal may not import the package '@nodegui/nodegui'",
        "terminal/t.ts: terminal may not import host ('../app/host/h')",
        "app/host/h.ts: host may not import ui ('../ui/view')",
      ]),
    );
    expect(r.stderr).toContain('layering: 5 violation(s)');
  });
});
