// Only the session host writes settings.json and the agents' hook, skill and MCP configs. Two
// checks hold that: the layer check refuses a client (ui, client, cli) that loads a writing module
// at run time, shown here by adding such an import to a copy of the real tree; and every module
// outside the host that writes files is either one of those writing modules or writes only
// Termio's own files (named below), never the settings or an agent's config.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_OWNED_WRITERS, WRITER_DOOR } from '../../scripts/lib/hostOwnedWriters.mjs';

const repo = resolve(__dirname, '..', '..');
const src = join(repo, 'src');
const check = (dir: string) => spawnSync(process.execPath, [join(repo, 'scripts', 'check-layers.mjs'), dir], { encoding: 'utf8' });

/** Modules outside the host that write files, and what (none of it is settings or an agent's config). */
const OTHER_WRITERS: Record<string, string> = {
  'app/services/atomicWrite.ts': 'the write helper itself (its callers are what this test looks at)',
  'app/services/log.ts': "each process's own log file",
  'app/services/latencyTrace.ts': 'the latency trace a developer asks for',
  'app/services/hostId.ts': "the host's id file in TERMIO_HOME",
  'app/services/programIdentity.ts': "the answers programs gave about themselves, in TERMIO_HOME's state",
  'app/services/entryFile.ts': "the host's own JSON lists (worktrees, fan-out groups)",
  'app/services/hookSilence.ts': 'the note of agent releases whose hooks did not report, in TERMIO_HOME',
  'app/services/appLaunch.ts': "the app's start-up log, which a detached app writes to",
  'app/cli/openDir.ts': "the host's start-up log, which a host started for `termio DIR` writes to",
  'app/services/unixSocket.ts': "a stale socket file of Termio's own in TERMIO_HOME/run, removed before listening",
};

/** A call of a file-writing function, bare (as imported) or on the fs module; not a method of anything else. */
const WRITES =
  /(?:(?<![.\w$])|\b(?:fs|fsp|promises)\.)(?:writeFileAtomic|writeFileSync|writeFile|renameSync|rename|appendFileSync|appendFile|createWriteStream|copyFileSync|cpSync|rmSync|unlinkSync|truncateSync|openSync)\s*\(/;
/** The modules that can write at all: they import Node's file API or the atomic write helper. */
const FILE_API = /from\s+['"](?:node:)?fs(?:\/promises)?['"]|from\s+['"]\.\/atomicWrite['"]/;
/** What names the files only the host writes. */
const SHARED_FILES = /settingsFile|settings\.json|hookConfigFile|mcpConfigFile|skillFile|config\.toml|\.claude/;

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.ts')) yield p;
  }
}
const rel = (f: string) => relative(src, f).split(sep).join('/');
const code = (f: string) =>
  readFileSync(f, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');

describe('one writer of shared state', () => {
  it('every module outside the host that writes files is a host-owned writer or writes only Termio’s own files', () => {
    const writes = (f: string) => FILE_API.test(code(f)) && WRITES.test(code(f));
    const writers = [...walk(src)].filter((f) => !rel(f).startsWith('app/host/') && writes(f)).map(rel);
    const unknown = writers.filter((f) => !HOST_OWNED_WRITERS.includes(f) && !Object.hasOwn(OTHER_WRITERS, f) && f !== WRITER_DOOR);
    expect(
      unknown,
      'a new module writes files: add it to HOST_OWNED_WRITERS (scripts/lib/hostOwnedWriters.mjs) or to OTHER_WRITERS here with what it writes',
    ).toEqual([]);
    for (const f of Object.keys(OTHER_WRITERS)) {
      expect(writers, `${f} is listed as a writer`).toContain(f);
      expect(code(join(src, f)), `${f} names a file only the host writes`).not.toMatch(SHARED_FILES);
    }
    for (const f of HOST_OWNED_WRITERS) expect(statSync(join(src, f)).isFile(), f).toBe(true);
  });

  describe('the layer check on a copy of the real tree', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'writers-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** The real tree with `line` added to `file`; the check's complaints. */
    function withLine(file: string, line: string): { status: number | null; stderr: string } {
      const tree = mkdtempSync(join(dir, 'src-'));
      cpSync(src, tree, { recursive: true });
      appendFileSync(join(tree, file), `\n${line}\n`);
      return check(tree);
    }

    it('passes as it is', () => {
      const r = check(src);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    });

    it('fails when the app loads the settings writer', () => {
      const r = withLine('app/ui/settingsPanels.ts', "import { SettingsStore } from '../services/settings';\nvoid SettingsStore;");
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('app/ui/settingsPanels.ts: a client may not load app/services/settings.ts, which writes state only the host writes');
    });

    it('fails when a CLI command other than localWriter loads an agent-config writer, even through a services module', () => {
      const r = withLine('app/cli/hooks.ts', "import { installAgentHooks } from '../services/hookInstaller';\nvoid installAgentHooks;");
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('app/cli/hooks.ts: a client may not load app/services/hookInstaller.ts');
      // A services module the client loads, which loads a writer: caught through the chain.
      const through = withLine('app/services/agentChoices.ts', "import { applyAgentConfigs } from './agentConfigs';\nvoid applyAgentConfigs;");
      expect(through.status).toBe(1);
      expect(through.stderr).toMatch(
        /app\/client\/remoteHost\.ts: a client may not load app\/services\/agentConfigs\.ts.*\(through .*app\/services\/agentChoices\.ts → app\/services\/agentConfigs\.ts\)/,
      );
    });

    it('lets the types through (they write nothing) and the host load them', () => {
      const r = withLine('app/ui/settingsPanels.ts', "import type { SettingsStore } from '../services/settings';\nexport type S = SettingsStore;");
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  });
});
