// The one atomic write (src/app/services/atomicWrite.ts) on real files, and every file Termio owns or
// edits going through it: a symlinked file (a dotfiles repo) stays a symlink and its target gets
// the text, the mode is kept, a failed write leaves the old file and no temp file behind.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicAsync } from '../../../src/app/services/atomicWrite';
import { ControlServer } from '../../../src/app/host/control/controlServer';
import { defaultReporterLocation, installAgentHooks } from '../../../src/app/services/hookInstaller';
import { termioPaths } from '../../../src/app/services/paths';
import { SessionRegistry } from '../../../src/app/host/sessions/sessionRegistry';
import { SettingsStore } from '../../../src/app/services/settings';
import { StateStore } from '../../../src/app/host/state/stateStore';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'termio-atomic-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file kept in a "dotfiles repo" and linked into place, as dotfile managers do. */
function linked(at: string, text: string, mode = 0o640): string {
  const target = join(dir, 'dotfiles', at.replace(/\//g, '_'));
  mkdirSync(join(dir, 'dotfiles'), { recursive: true });
  writeFileSync(target, text);
  chmodSync(target, mode);
  mkdirSync(join(at, '..'), { recursive: true });
  symlinkSync(target, at);
  return target;
}

const leftovers = () =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => n.includes('.tmp-'));

describe('writeFileAtomic', () => {
  it('writes a new file with the given mode, replaces an existing one keeping its mode', () => {
    const f = join(dir, 'a', 'new.json');
    writeFileAtomic(f, 'one', { mode: 0o600 });
    expect(readFileSync(f, 'utf8')).toBe('one');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    chmodSync(f, 0o640);
    writeFileAtomic(f, 'two');
    expect(readFileSync(f, 'utf8')).toBe('two');
    expect(statSync(f).mode & 0o777).toBe(0o640);
    writeFileAtomic(f, 'three', { mode: 0o600, forceMode: true });
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(leftovers()).toEqual([]);
  });

  it('writes through a symlink (and a chain of them, and a dangling one) and keeps the links', () => {
    const link = join(dir, 'home', 'settings.json');
    const target = linked(link, 'old');
    const link2 = join(dir, 'home', 'again.json');
    symlinkSync(link, link2);
    writeFileAtomic(link2, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lstatSync(link2).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(target).mode & 0o777).toBe(0o640);
    const dangling = join(dir, 'home', 'dangling.json');
    symlinkSync(join(dir, 'dotfiles', 'not-yet.json'), dangling);
    writeFileAtomic(dangling, 'made');
    expect(readlinkSync(dangling)).toBe(join(dir, 'dotfiles', 'not-yet.json'));
    expect(readFileSync(join(dir, 'dotfiles', 'not-yet.json'), 'utf8')).toBe('made');
    expect(leftovers()).toEqual([]);
  });

  it('a write that fails leaves the old file as it was and no temp file', () => {
    // A folder where the file should be: the rename over it fails.
    const f = join(dir, 'taken');
    mkdirSync(join(f, 'inside'), { recursive: true });
    expect(() => writeFileAtomic(f, 'text')).toThrow();
    expect(statSync(join(f, 'inside')).isDirectory()).toBe(true);
    expect(leftovers()).toEqual([]);
  });
});

describe('writeFileAtomicAsync (large files, written off the event loop)', () => {
  it('writes its chunks in order with the mode, through a symlink, and a failed write leaves the old file', async () => {
    const f = join(dir, 'b', 'big.bin');
    await writeFileAtomicAsync(f, [Buffer.from('head\n'), Buffer.from('body')], { mode: 0o600, forceMode: true, durable: false });
    expect(readFileSync(f, 'utf8')).toBe('head\nbody');
    expect(statSync(f).mode & 0o777).toBe(0o600);
    const link = join(dir, 'home', 'linked.bin');
    const target = linked(link, 'old');
    await writeFileAtomicAsync(link, [Buffer.from('new')]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
    const taken = join(dir, 'taken');
    mkdirSync(join(taken, 'inside'), { recursive: true });
    await expect(writeFileAtomicAsync(taken, [Buffer.from('text')])).rejects.toThrow();
    expect(statSync(join(taken, 'inside')).isDirectory()).toBe(true);
    expect(leftovers()).toEqual([]);
  });
});

describe('every file Termio owns or edits goes through it', () => {
  it('settings.json linked from a dotfiles repo stays a link when Termio changes a setting', () => {
    const file = join(dir, '.termio', 'config', 'settings.json');
    const target = linked(file, '{\n  // mine\n  "welcomeShown": false\n}\n', 0o644);
    const store = new SettingsStore(file);
    store.set(['welcomeShown'], true);
    store.dispose();
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('{\n  // mine\n  "welcomeShown": true\n}\n');
    expect(leftovers()).toEqual([]);
  });

  it('the state file linked elsewhere stays a link, and stays private', () => {
    const file = join(dir, '.termio', 'state', 'sessions.json');
    const target = linked(file, JSON.stringify({ version: 1, windows: [], sessions: [] }), 0o600);
    const { store } = StateStore.open({ file, writeDelayMs: 60_000 });
    store.addWindow('w');
    store.flush();
    store.dispose();
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8')).windows).toEqual([{ id: 'w', tabs: [], activeTab: null }]);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it("an agent's hook config linked from dotfiles stays a link and keeps its mode", () => {
    const file = join(dir, 'home', '.claude', 'settings.json');
    const target = linked(file, '{ "model": "opus" }\n', 0o600);
    const r = installAgentHooks(
      { agentId: 'claude', hooks: { type: 'json', file: '~/.claude/settings.json', dialect: 'claude', events: [{ on: 'Stop', state: 'done' }] } },
      { paths: termioPaths({ TERMIO_HOME: join(dir, '.termio') }), home: join(dir, 'home'), reporter: defaultReporterLocation() },
    );
    expect(r).toMatchObject({ state: 'installed', action: 'written' });
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('"Stop"');
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('control.json is written whole and private', async () => {
    const paths = termioPaths({ TERMIO_HOME: join(dir, '.termio') });
    const registry = new SessionRegistry();
    const server = new ControlServer({ paths, registry });
    try {
      expect(await server.listen()).toMatchObject({ ok: true });
      expect(statSync(server.infoFile).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(server.infoFile, 'utf8'))).toMatchObject({ pid: process.pid });
      expect(leftovers()).toEqual([]);
    } finally {
      await server.close();
      registry.dispose();
    }
  });
});
