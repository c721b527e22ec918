// The agent catalog over real files in a temporary HOME/TERMIO_HOME: bundled + user manifests,
// overrides, ordering, availability on an injected PATH, icons, every nasty input giving one clear
// error while the other agents stay loaded, and live reload (add, edit, break, fix, delete).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, symlinkSync, unlinkSync, writeFileSync, writeSync, renameSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentCatalog, compareEntries, type CatalogEntry, type CatalogOptions } from '../../../src/app/services/catalog';
import { waitFor } from '../../helpers/waitFor';
import { runWithoutFileOverride } from '../../helpers/withoutFileOverride';

const REPO = join(__dirname, '..', '..', '..');
const BUNDLED_IDS = [
  'claude',
  'codex',
  'gemini',
  'grok',
  'copilot',
  'cursor',
  'opencode',
  'opencode2',
  'qwen',
  'droid',
  'amp',
  'crush',
  'aider',
  'goose',
  'antigravity',
  'cline',
  'hermes',
  'kimi',
  'pi',
  'kilo',
  'auggie',
  'continue',
  'terminal',
];

let root: string;
let home: string;
let userDir: string;
let binDir: string;
let env: NodeJS.ProcessEnv;
const open: AgentCatalog[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'termio-catalog-'));
  home = join(root, 'home');
  userDir = join(home, '.termio', 'config', 'agents');
  binDir = join(root, 'bin');
  mkdirSync(userDir, { recursive: true });
  mkdirSync(binDir);
  env = { HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/sh', PATH: binDir };
});

afterEach(async () => {
  for (const c of open.splice(0)) await c.dispose();
  rmSync(root, { recursive: true, force: true });
});

async function catalog(opts: Partial<CatalogOptions> = {}): Promise<AgentCatalog> {
  const c = await AgentCatalog.create({ env, path: binDir, watch: false, ...opts });
  open.push(c);
  return c;
}

function install(command: string): string {
  const file = join(binDir, command);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

function writeAgent(name: string, manifest: unknown): string {
  const file = join(userDir, name);
  writeFileSync(file, typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  return file;
}

/** Writes like an editor does: a temp file renamed into place, so a watcher never sees half a file. */
function saveAgent(name: string, manifest: unknown): string {
  const file = join(userDir, name);
  const tmp = join(userDir, `.${name}.tmp`);
  writeFileSync(tmp, typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  renameSync(tmp, file);
  return file;
}

const ids = (c: AgentCatalog) => c.list().map((e) => e.id);
const labelOf = (name: string) => `~/.termio/config/agents/${name}`;

describe('AgentCatalog: loading', () => {
  it('loads every bundled agent with its source, label, resume family and status channels', async () => {
    const c = await catalog();
    expect(ids(c).sort()).toEqual([...BUNDLED_IDS].sort());
    expect(c.problems()).toEqual([]);
    const claude = c.get('claude')!;
    expect(claude).toMatchObject({
      source: 'bundled',
      file: join(REPO, 'agents', 'claude.json'),
      label: 'agents/claude.json',
      resumeFamily: 'pinned',
      statusChannels: ['hooks', 'title'],
      warnings: [],
      errors: [],
      iconFile: join(REPO, 'assets', 'icons', 'claude.svg'),
    });
    expect(c.get('codex')!.resumeFamily).toBe('discovered');
    expect(c.get('aider')!.resumeFamily).toBe('none');
    expect(c.get('aider')!.statusChannels).toEqual([]);
  });

  it('orders the picker by order, then manifests without one, then by name', async () => {
    writeAgent('zeta.json', { id: 'zeta', name: 'Zeta', command: 'zeta' });
    writeAgent('alpha.json', { id: 'alpha', name: 'alpha', command: 'alpha' });
    writeAgent('beta.json', { id: 'beta', name: 'Beta', command: 'beta' });
    writeAgent('first.json', { id: 'first', name: 'Zzz first', command: 'first', order: -5 });
    writeAgent('tie.json', { id: 'tie', name: 'Aaa tie', command: 'tie', order: 10 });
    const c = await catalog();
    expect(ids(c)).toEqual([
      'first',
      'tie', // order 10, name "Aaa tie" sorts before "Claude Code" (also 10)
      'claude',
      'codex',
      'gemini',
      'grok',
      'copilot',
      'cursor',
      'opencode',
      'opencode2',
      'qwen',
      'droid',
      'amp',
      'crush',
      'aider',
      'goose',
      'antigravity',
      'cline',
      'hermes',
      'kimi',
      'pi',
      'kilo',
      'auggie',
      'continue',
      'terminal',
      'alpha',
      'beta',
      'zeta',
    ]);
  });

  it('compares entries without order after those with one, whatever their names', () => {
    const e = (id: string, name: string, order?: number) =>
      ({ id, manifest: { id, name, command: id, ...(order === undefined ? {} : { order }) } }) as CatalogEntry;
    expect([e('b', 'B'), e('a', 'A', 99), e('c', 'a'), e('d', 'A', 1)].sort(compareEntries).map((x) => x.id)).toEqual(['d', 'a', 'c', 'b']);
  });

  it('marks agents installed when their command is on the PATH, and the Terminal always', async () => {
    const claudeBin = install('claude');
    writeFileSync(join(binDir, 'codex'), 'not executable');
    const c = await catalog();
    expect(c.get('claude')).toMatchObject({ installed: true, resolvedCommand: claudeBin });
    expect(c.get('codex')!.installed).toBe(false);
    expect(c.get('codex')!.resolvedCommand).toBeUndefined();
    expect(c.get('gemini')).toMatchObject({ installed: false, manifest: { install: 'https://www.npmjs.com/package/@google/gemini-cli' } });
    expect(c.get('terminal')).toMatchObject({ installed: true, resolvedCommand: '/bin/sh' });
  });

  it('notices an agent installed later when availability is refreshed', async () => {
    const c = await catalog();
    expect(c.get('gemini')!.installed).toBe(false);
    const changes: unknown[] = [];
    c.onChange((e) => changes.push(e));
    install('gemini');
    c.refreshAvailability();
    expect(c.get('gemini')!.installed).toBe(true);
    expect(changes).toEqual([{ files: [] }]);
    // Refreshed again with nothing new (the picker opens often): nobody is told.
    c.refreshAvailability();
    expect(changes).toHaveLength(1);
  });

  it('resolves on a new PATH once given one (the login shell exports another)', async () => {
    const c = await catalog();
    expect(c.get('gemini')!.installed).toBe(false);
    const other = join(home, 'other-bin');
    mkdirSync(other);
    writeFileSync(join(other, 'gemini'), '#!/bin/sh\n');
    chmodSync(join(other, 'gemini'), 0o755);
    c.refreshAvailability(`${other}:${binDir}`);
    expect(c.get('gemini')).toMatchObject({ installed: true, resolvedCommand: join(other, 'gemini') });
    // A refresh without a PATH keeps the new one.
    c.refreshAvailability();
    expect(c.get('gemini')!.installed).toBe(true);
  });

  it('resolves commands given as a path, including ~/', async () => {
    mkdirSync(join(home, 'tools'));
    const tool = join(home, 'tools', 'my-agent');
    writeFileSync(tool, '#!/bin/sh\n');
    chmodSync(tool, 0o755);
    writeAgent('mine.json', { id: 'mine', name: 'Mine', command: '~/tools/my-agent' });
    writeAgent('abs.json', { id: 'abs', name: 'Abs', command: tool });
    writeAgent('nope.json', { id: 'nope', name: 'Nope', command: '~/tools/missing' });
    const c = await catalog();
    expect(c.get('mine')).toMatchObject({ installed: true, resolvedCommand: tool });
    expect(c.get('abs')).toMatchObject({ installed: true, resolvedCommand: tool });
    expect(c.get('nope')!.installed).toBe(false);
  });

  it('adds user agents, labelled as the user would type the path', async () => {
    writeAgent('my-agent.json', { id: 'my-agent', name: 'My Agent', command: 'my-agent' });
    const c = await catalog();
    expect(c.get('my-agent')).toMatchObject({ source: 'user', label: labelOf('my-agent.json'), installed: false, errors: [], warnings: [] });
  });

  it('lets a user manifest override a bundled id', async () => {
    const file = writeAgent('claude.json', { id: 'claude', name: 'My Claude', command: 'claude-wrapper', order: 1 });
    install('claude-wrapper');
    const c = await catalog();
    const claude = c.get('claude')!;
    expect(claude).toMatchObject({ source: 'user', file, overrides: join(REPO, 'agents', 'claude.json'), installed: true });
    expect(claude.manifest.name).toBe('My Claude');
    expect(ids(c).filter((id) => id === 'claude')).toHaveLength(1);
    expect(ids(c)[0]).toBe('claude');
  });

  it('keeps the bundled agent when the user override is broken, and reports the override', async () => {
    writeAgent('claude.json', { id: 'claude', name: 'My Claude', command: '--claude' });
    const c = await catalog();
    expect(c.get('claude')!.source).toBe('bundled');
    expect(c.problems()).toEqual([
      {
        file: join(userDir, 'claude.json'),
        label: labelOf('claude.json'),
        source: 'user',
        errors: [`${labelOf('claude.json')}: command: expected a program or a command line, got the flag "--claude"`],
        warnings: [],
        keptLastGood: false,
      },
    ]);
  });

  it('reports two user files with the same id, keeping the first by file name', async () => {
    writeAgent('a.json', { id: 'same', name: 'From A', command: 'x' });
    writeAgent('b.json', { id: 'same', name: 'From B', command: 'x' });
    const c = await catalog();
    expect(c.get('same')!.manifest.name).toBe('From A');
    expect(c.problems().map((p) => p.errors)).toEqual([[`${labelOf('b.json')}: id: "same" is already defined by ${labelOf('a.json')}; this file is ignored`]]);
  });

  it('warns when the file name is not <id>.json', async () => {
    writeAgent('other-name.json', { id: 'foo', name: 'Foo', command: 'foo' });
    const c = await catalog();
    expect(c.get('foo')!.warnings).toEqual([`${labelOf('other-name.json')}: id: "foo" differs from the file name; ATP expects foo.json`]);
  });

  it('ignores files that are not *.json and hidden files', async () => {
    writeAgent('notes.txt', 'hello');
    writeAgent('.#foo.json', 'lock');
    writeAgent('foo.json.bak', '{}');
    const c = await catalog();
    expect(ids(c).sort()).toEqual([...BUNDLED_IDS].sort());
    expect(c.problems()).toEqual([]);
  });
});

describe('AgentCatalog: icons', () => {
  it('resolves a path icon beside the manifest, symbols to fallback glyphs, and unknown marks to the generic one', async () => {
    writeFileSync(join(userDir, 'mine.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeAgent('mine.json', { id: 'mine', name: 'Mine', command: 'mine', icon: { path: 'mine.svg', tint: '#ff0000' } });
    writeAgent('gone.json', { id: 'gone', name: 'Gone', command: 'gone', icon: { path: 'gone.png' } });
    writeAgent('sym.json', { id: 'sym', name: 'Sym', command: 'sym', icon: { symbol: 'terminal.fill' } });
    writeAgent('odd.json', { id: 'odd', name: 'Odd', command: 'odd', icon: { symbol: 'tortoise' } });
    writeAgent('vec.json', { id: 'vec', name: 'Vec', command: 'vec', icon: { vector: 'nosuchbrand' } });
    writeAgent('none.json', { id: 'none', name: 'None', command: 'none' });
    const c = await catalog();
    const icons = join(REPO, 'assets', 'icons');
    expect(c.get('mine')).toMatchObject({ iconFile: join(userDir, 'mine.svg'), warnings: [] });
    expect(c.get('mine')!.manifest.icon!.tint).toBe('#ff0000');
    expect(c.get('gone')).toMatchObject({
      iconFile: join(icons, 'agent.svg'),
      warnings: [`${labelOf('gone.json')}: icon.path: no such file: ${join(userDir, 'gone.png')}; using the generic mark`],
    });
    expect(c.get('sym')!.iconFile).toBe(join(icons, 'symbols', 'terminal.svg'));
    expect(c.get('odd')!.iconFile).toBe(join(icons, 'agent.svg'));
    expect(c.get('none')!.iconFile).toBe(join(icons, 'agent.svg'));
    expect(c.get('vec')!.warnings).toHaveLength(1);
    expect(c.get('vec')!.warnings[0]).toMatch(
      new RegExp(
        `^${labelOf('vec.json').replace(/[.]/g, '\\.')}: icon\\.vector: no built-in mark named "nosuchbrand" \\(known: aider, amp, antigravity, claude, cline, codex, copilot, crush, cursor, droid, gemini, goose, grok, hermes, kimi, opencode, pi, qwen\\); using the generic mark$`,
      ),
    );
  });
});

describe('AgentCatalog: nasty inputs each give one clear error and leave the rest loaded', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('handles a 10 MB file, deep nesting, a non-object root, invalid UTF-8, a folder, a symlink loop, a dangling link, a FIFO and a socket', async () => {
    writeAgent('good.json', { id: 'good', name: 'Good', command: 'good' });
    writeAgent('huge.json', `{"id":"huge","name":"Huge","command":"huge","comment":"${'x'.repeat(10 * 1024 * 1024)}"}`);
    writeAgent('deep.json', `{"id":"deep","name":"Deep","command":"deep","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
    writeAgent('list.json', '[{"id":"list","name":"List","command":"list"}]');
    writeFileSync(
      join(userDir, 'latin1.json'),
      Buffer.concat([Buffer.from('{"id":"latin1","name":"Caf'), Buffer.from([0xe9]), Buffer.from('","command":"x"}')]),
    );
    mkdirSync(join(userDir, 'folder.json'));
    symlinkSync('loop-b.json', join(userDir, 'loop-a.json'));
    symlinkSync('loop-a.json', join(userDir, 'loop-b.json'));
    symlinkSync('nowhere.json', join(userDir, 'dangling.json'));
    execFileSync('mkfifo', [join(userDir, 'fifo.json')]);
    const sock = join(userDir, 'sock.json');
    server = createServer();
    await new Promise<void>((r) => server!.listen(sock, () => r()));

    const c = await catalog();
    expect(ids(c)).toContain('good');
    expect(ids(c).filter((id) => !BUNDLED_IDS.includes(id))).toEqual(['good']);
    const byLabel = Object.fromEntries(c.problems().map((p) => [p.label.replace('~/.termio/config/agents/', ''), p.errors]));
    expect(byLabel).toEqual({
      'dangling.json': [`${labelOf('dangling.json')}: is a symlink to a missing file`],
      'deep.json': [`${labelOf('deep.json')}: nested too deeply (more than 32 levels at line 1, column 80)`],
      'folder.json': [`${labelOf('folder.json')}: is a folder, not a manifest file`],
      'huge.json': [`${labelOf('huge.json')}: file is too large (10.0 MB); a manifest is at most 1.0 MB`],
      'latin1.json': [`${labelOf('latin1.json')}: not valid UTF-8 text (byte 0xe9 at offset 26); save the file as UTF-8`],
      'list.json': [`${labelOf('list.json')}: expected a JSON object at the top level, got a list`],
      'loop-a.json': [`${labelOf('loop-a.json')}: is a symlink loop`],
      'loop-b.json': [`${labelOf('loop-b.json')}: is a symlink loop`],
      'fifo.json': [`${labelOf('fifo.json')}: is not a regular file`],
      'sock.json': [`${labelOf('sock.json')}: is a socket or device, not a manifest file`],
    });
  });

  // Root reads a mode-000 file anyway: the catalog runs in `termio agents list --json` (built by
  // npm test) over the same folder, without root's power to override file permissions.
  it('reports an unreadable file (permission denied)', () => {
    writeAgent('good.json', { id: 'good', name: 'Good', command: 'good' });
    const file = writeAgent('secret.json', { id: 'secret', name: 'Secret', command: 'secret' });
    chmodSync(file, 0o000);
    const out = runWithoutFileOverride([process.execPath, join(REPO, 'bin', 'termio'), 'agents', 'list', '--json'], {
      env: { ...env, PATH: process.env.PATH },
    });
    const listed = JSON.parse(out) as { agents: { id: string }[]; problems: { errors: string[] }[] };
    expect(listed.agents.map((a) => a.id)).toContain('good');
    expect(listed.problems.map((p) => p.errors)).toEqual([[`${labelOf('secret.json')}: cannot be read (permission denied)`]]);
  });
});

describe('AgentCatalog: live reload', () => {
  it('shows added, edited, broken, fixed and deleted user manifests without a restart', async () => {
    const c = await catalog({ watch: true });
    const events: string[][] = [];
    c.onChange((e) => events.push(e.files));
    const file = join(userDir, 'live.json');

    saveAgent('live.json', { id: 'live', name: 'Live', command: 'live' });
    await waitFor(() => c.get('live'), { what: 'the added agent', timeout: 5000 });
    expect(c.get('live')!.manifest.name).toBe('Live');

    saveAgent('live.json', { id: 'live', name: 'Live 2', command: 'live' });
    await waitFor(() => c.get('live')?.manifest.name === 'Live 2', { what: 'the edit', timeout: 5000 });

    saveAgent('live.json', '{"id": "live", "name": ');
    await waitFor(() => c.get('live')?.errors.length, { what: 'the error', timeout: 5000 });
    expect(c.get('live')).toMatchObject({
      manifest: { name: 'Live 2' },
      errors: [`${labelOf('live.json')}: not valid JSON: unexpected end of the file (line 1, column 24)`],
    });
    expect(c.problems()).toEqual([{ file, label: labelOf('live.json'), source: 'user', errors: c.get('live')!.errors, warnings: [], keptLastGood: true }]);

    saveAgent('live.json', { id: 'live', name: 'Live 3', command: 'live' });
    await waitFor(() => c.get('live')?.manifest.name === 'Live 3', { what: 'the fix', timeout: 5000 });
    expect(c.get('live')!.errors).toEqual([]);
    expect(c.problems()).toEqual([]);

    unlinkSync(file);
    await waitFor(() => !c.get('live'), { what: 'the removal', timeout: 5000 });
    expect(c.problems()).toEqual([]);
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.every((files) => files.length === 1 && files[0] === file)).toBe(true);
  });

  it('never reads a manifest written in pieces half-done', async () => {
    const c = await catalog({ watch: true });
    const seen: string[] = [];
    c.onChange(() => {
      const e = c.get('slow');
      seen.push(e ? `${e.manifest.name}:${e.errors.length}` : c.problems().length ? 'problem' : 'absent');
    });
    const text = JSON.stringify({ id: 'slow', name: 'Slow', command: 'slow', comment: 'y'.repeat(4000) }, null, 2);
    const fd = openSync(join(userDir, 'slow.json'), 'w');
    const pieces = 8;
    const size = Math.ceil(text.length / pieces);
    for (let i = 0; i < pieces; i++) {
      writeSync(fd, text.slice(i * size, (i + 1) * size));
      // Pieces 20 ms apart: a slow writer, yet faster than the catalog's settle time.
      await new Promise((r) => setTimeout(r, 20));
    }
    closeSync(fd);
    await waitFor(() => c.get('slow'), { what: 'the slowly written agent', timeout: 5000 });
    expect(seen.filter((s) => s !== 'Slow:0')).toEqual([]);
    expect(c.problems()).toEqual([]);
  });

  it('reloads a user override of a bundled agent and falls back to the bundled one when it is deleted', async () => {
    const c = await catalog({ watch: true });
    const file = saveAgent('codex.json', { id: 'codex', name: 'My Codex', command: 'codex' });
    await waitFor(() => c.get('codex')?.source === 'user', { what: 'the override', timeout: 5000 });
    unlinkSync(file);
    await waitFor(() => c.get('codex')?.source === 'bundled', { what: 'the bundled agent again', timeout: 5000 });
    expect(c.get('codex')!.manifest.name).toBe('Codex');
  });

  it('reports a folder created with a manifest name, then forgets it when removed', async () => {
    const c = await catalog({ watch: true });
    mkdirSync(join(userDir, 'dir.json'));
    await waitFor(() => c.problems().length === 1, { what: 'the folder problem', timeout: 5000 });
    expect(c.problems()[0]!.errors).toEqual([`${labelOf('dir.json')}: is a folder, not a manifest file`]);
    rmSync(join(userDir, 'dir.json'), { recursive: true });
    await waitFor(() => c.problems().length === 0, { what: 'the folder to be forgotten', timeout: 5000 });
  });

  it('creates the user folder when it is missing and watches it', async () => {
    rmSync(userDir, { recursive: true });
    const c = await catalog({ watch: true });
    saveAgent('later.json', { id: 'later', name: 'Later', command: 'later' });
    await waitFor(() => c.get('later'), { what: 'the agent in the new folder', timeout: 5000 });
  });

  it('stops reporting after dispose', async () => {
    const c = await catalog({ watch: true });
    // A second watcher on the same folder proves the change happened and was delivered to watchers.
    const witness = await catalog({ watch: true });
    let calls = 0;
    c.onChange(() => calls++);
    await c.dispose();
    saveAgent('after.json', { id: 'after', name: 'After', command: 'after' });
    await waitFor(() => witness.get('after'), { what: 'the witness to see the new file', timeout: 5000 });
    expect(calls).toBe(0);
    expect(c.get('after')).toBeUndefined();
  });
});
