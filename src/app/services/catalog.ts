// The agent catalog: bundled manifests (agents/) plus the user's ($TERMIO_HOME/config/agents/*.json),
// a user manifest overriding a bundled one with the same id. User files are watched: adding,
// editing or deleting one shows up without a restart; a file that turns invalid keeps its last
// good version loaded while its errors are shown. Plain data out (list/get/problems) plus onChange.
import { withConfigHome } from '../../protocol/configHome';
import { commandLineProgram, isCommandLine } from '../../protocol/commandLine';
import type { Disposable } from '../../protocol/events';
import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { manifestResumeFamily, manifestStatusChannels, type DisabledFeature, type ManifestResumeFamily } from '../../protocol/manifestParse';
import { type Manifest } from '../../protocol/manifestSchema';
import { DEFAULT_ICONS_DIR } from './agentIconFile';
import { createCommandResolver, loginShellPath, type CommandResolver } from './loginShellPath';
import { nullLogger, type Logger } from './log';
import { ensureDir, termioPaths } from './paths';
import { readManifestFile } from './readManifestFile';
import { installPath, installRoot } from './install';
import { shortenHome } from '../../protocol/homePath';

/** This installation's root (src/app/host and dist/app/host both sit three levels down). */
export const DEFAULT_BUNDLED_AGENTS_DIR = installPath('agents');
/** Files beside the bundled manifests that are not manifests: the generated JSON Schema, and the
 *  releases the agent matrix verified (scripts/agent-matrix-doc.mjs writes it). */
const NOT_MANIFESTS = new Set(['manifest.schema.json', 'verified.json']);
/**
 * A save is "finished" once the file size has not changed for this long. Editors and `cp` finish
 * well within it, and it keeps the add → picker latency far under the 1 s the product promises.
 */
const WRITE_STABLE_MS = 120;
/** How often chokidar re-checks the size while waiting for a write to finish. */
const WRITE_POLL_MS = 30;

export type CatalogSource = 'bundled' | 'user';

export interface CatalogEntry {
  id: string;
  manifest: Manifest;
  source: CatalogSource;
  /** Absolute path of the manifest file. */
  file: string;
  /** How messages name the file, e.g. "~/.termio/config/agents/foo.json" or "agents/claude.json". */
  label: string;
  /** The command was found on the login shell's PATH (always true for the login-shell Terminal). */
  installed: boolean;
  /** Absolute path of the command (or of $SHELL for the Terminal), when installed. */
  resolvedCommand?: string;
  /** The image to draw; apply manifest.icon?.tint. For icon.symbol, macOS may draw the symbol natively. */
  iconFile?: string;
  resumeFamily: ManifestResumeFamily;
  statusChannels: ('hooks' | 'title' | 'screen')[];
  /** Features the manifest declares in a form this version cannot use: the agent loads without them. */
  disabled: DisabledFeature[];
  warnings: string[];
  /** Non-empty when the file is currently broken: this entry is its last good version. */
  errors: string[];
  /** The bundled manifest this user manifest replaces. */
  overrides?: string;
}

/** A file that could not be loaded, or that is broken and shown in its last good version. */
export interface CatalogProblem {
  file: string;
  label: string;
  source: CatalogSource;
  errors: string[];
  warnings: string[];
  /** An earlier good version of this file is still loaded. */
  keptLastGood: boolean;
}

export interface CatalogChangeEvent {
  /** The files whose state changed (absolute paths); empty after an availability refresh. */
  files: string[];
}

export interface CatalogOptions {
  /** For TERMIO_HOME, HOME and SHELL; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  bundledDir?: string;
  /** Defaults to $TERMIO_HOME/config/agents. */
  userDir?: string;
  iconsDir?: string;
  /** Watch the user folder for changes (default true; the CLI turns it off). */
  watch?: boolean;
  /** The PATH to resolve commands on; defaults to the login shell's (asked once, cached). Tests inject it. */
  path?: string;
  logger?: Logger;
}

interface FileState {
  file: string;
  source: CatalogSource;
  label: string;
  /** The latest good load of this file. */
  good?: { manifest: Manifest; warnings: string[]; disabled: DisabledFeature[]; iconFile?: string };
  /** Errors of the latest load (empty when it was good). */
  errors: string[];
  /** Warnings of the latest load when it failed (a good load's warnings live in good). */
  warnings: string[];
}

export class AgentCatalog {
  private readonly files = new Map<string, FileState>();
  private readonly listeners = new Set<(e: CatalogChangeEvent) => void>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private entries: CatalogEntry[] = [];
  private byId = new Map<string, CatalogEntry>();
  private duplicateProblems: CatalogProblem[] = [];
  private resolver: CommandResolver;
  /** The PATH commands are resolved on (the login shell's, asked again when its files change). */
  private path: string;
  private watcher: FSWatcher | undefined;
  private disposed = false;

  private constructor(
    private readonly opts: Required<Pick<CatalogOptions, 'bundledDir' | 'userDir' | 'iconsDir'>> & { env: NodeJS.ProcessEnv; path: string; logger: Logger },
  ) {
    this.path = opts.path;
    this.resolver = createCommandResolver(opts.path, opts.env);
  }

  /** Loads every manifest (and starts watching the user folder unless watch is false). */
  static async create(options: CatalogOptions = {}): Promise<AgentCatalog> {
    const env = options.env ?? process.env;
    const logger = options.logger ?? nullLogger;
    let path = options.path;
    if (path === undefined) {
      const answer = await loginShellPath(env);
      if (answer.problem) logger.warn('catalog: using the environment PATH', { problem: answer.problem });
      path = answer.path;
    }
    const catalog = new AgentCatalog({
      env,
      logger,
      path,
      bundledDir: resolve(options.bundledDir ?? DEFAULT_BUNDLED_AGENTS_DIR),
      userDir: resolve(options.userDir ?? termioPaths(env).userAgentsDir),
      iconsDir: options.iconsDir ?? DEFAULT_ICONS_DIR,
    });
    if (options.watch !== false) await catalog.startWatching();
    await catalog.loadAll();
    return catalog;
  }

  /** Every loaded agent, in picker order: `order` ascending, manifests without one last, then by name. */
  list(): CatalogEntry[] {
    return this.entries.slice();
  }

  get(id: string): CatalogEntry | undefined {
    return this.byId.get(id);
  }

  /** Every file that failed to load or is broken now, in file order. */
  problems(): CatalogProblem[] {
    const out: CatalogProblem[] = [];
    for (const s of this.sortedStates()) {
      if (s.errors.length)
        out.push({ file: s.file, label: s.label, source: s.source, errors: s.errors, warnings: s.warnings, keptLastGood: s.good !== undefined });
    }
    return [...out, ...this.duplicateProblems];
  }

  onChange(listener: (e: CatalogChangeEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** A command as agents' commands are resolved (on the login shell's PATH), or undefined. */
  resolveCommand(command: string): string | undefined {
    return this.resolver.resolve(command);
  }

  /** Re-reads the PATH folders (the picker opens, a session starts: the user may have installed
   *  an agent since); with `path`, resolves on that PATH from now on (the login shell's changed).
   *  Listeners hear of it only when an agent's command resolves otherwise now. */
  refreshAvailability(path?: string): void {
    if (path !== undefined) this.path = path;
    this.resolver = createCommandResolver(this.path, this.opts.env);
    this.rebuild([], availability(this.entries));
  }

  /** Waits until every reload that has started is applied (tests, and the CLI before it exits). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.listeners.clear();
    const w = this.watcher;
    this.watcher = undefined;
    if (w) await w.close();
    await Promise.allSettled([...this.pending.values()]);
  }

  // -------------------------------------------------------------------------------------------

  private async loadAll(): Promise<void> {
    const [bundled, user] = await Promise.all([listJsonFiles(this.opts.bundledDir, true), listJsonFiles(this.opts.userDir, false)]);
    await Promise.all([...bundled.map((f) => this.loadFile(f, 'bundled')), ...user.map((f) => this.loadFile(f, 'user'))]);
    this.rebuild([]);
  }

  private async startWatching(): Promise<void> {
    try {
      ensureDir(this.opts.userDir);
    } catch (err) {
      this.opts.logger.warn('catalog: cannot create the user agents folder', { dir: this.opts.userDir, error: String(err) });
      return;
    }
    const dir = this.opts.userDir;
    const watcher = watch(dir, {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: { stabilityThreshold: WRITE_STABLE_MS, pollInterval: WRITE_POLL_MS },
      ignored: (p) => p !== dir && !/\.json$/i.test(p),
    });
    this.watcher = watcher;
    const handle = (p: string) => {
      if (resolve(dirname(p)) === dir && isManifestName(basename(p))) this.schedule(resolve(p));
    };
    for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) watcher.on(event, handle);
    watcher.on('error', (err) => this.opts.logger.warn('catalog: watcher error', { error: String(err) }));
    await new Promise<void>((r) => watcher.once('ready', () => r()));
  }

  /** Reloads one user file; loads of the same file run one at a time, the last one wins. */
  private schedule(file: string): void {
    if (this.disposed) return;
    if (this.pending.has(file)) {
      this.again.add(file);
      return;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(file);
          await this.loadFile(file, 'user');
        } while (this.again.has(file) && !this.disposed);
      } finally {
        this.pending.delete(file);
      }
      if (!this.disposed) this.rebuild([file]);
    })();
    this.pending.set(file, run);
  }

  private async loadFile(file: string, source: CatalogSource): Promise<void> {
    const label = this.labelOf(file, source);
    const result = await readManifestFile(file, label, { iconsDir: this.opts.iconsDir, env: this.opts.env });
    if (result.missing) {
      this.files.delete(file);
      return;
    }
    const previous = this.files.get(file);
    if (result.manifest) {
      this.files.set(file, {
        file,
        source,
        label,
        good: {
          manifest: result.manifest,
          warnings: result.warnings,
          disabled: result.disabled ?? [],
          ...(result.iconFile ? { iconFile: result.iconFile } : {}),
        },
        errors: [],
        warnings: [],
      });
    } else {
      this.files.set(file, { file, source, label, ...(previous?.good ? { good: previous.good } : {}), errors: result.errors, warnings: result.warnings });
      this.opts.logger.warn('catalog: manifest not loaded', { file, errors: result.errors });
    }
  }

  /** `unlessAvailability`: no change event when the agents' commands resolve as this says they did. */
  private rebuild(files: string[], unlessAvailability?: string): void {
    const bundled = new Map<string, FileState & { good: NonNullable<FileState['good']> }>();
    const user = new Map<string, FileState & { good: NonNullable<FileState['good']> }>();
    const duplicates: CatalogProblem[] = [];
    for (const s of this.sortedStates()) {
      if (!s.good) continue;
      const target = s.source === 'bundled' ? bundled : user;
      const id = s.good.manifest.id;
      const first = target.get(id);
      if (first) {
        duplicates.push({
          file: s.file,
          label: s.label,
          source: s.source,
          errors: [`${s.label}: id: "${id}" is already defined by ${first.label}; this file is ignored`],
          warnings: [],
          keptLastGood: false,
        });
        continue;
      }
      target.set(id, s as FileState & { good: NonNullable<FileState['good']> });
    }
    const chosen = new Map<string, { state: FileState & { good: NonNullable<FileState['good']> }; overrides?: string }>();
    for (const [id, s] of bundled) chosen.set(id, { state: s });
    for (const [id, s] of user) {
      const replaced = bundled.get(id);
      chosen.set(id, replaced ? { state: s, overrides: replaced.file } : { state: s });
    }
    const entries = [...chosen.values()].map(({ state, overrides }) => this.entryOf(state, overrides));
    entries.sort(compareEntries);
    this.entries = entries;
    this.byId = new Map(entries.map((e) => [e.id, e]));
    this.duplicateProblems = duplicates;
    if (unlessAvailability !== undefined && availability(entries) === unlessAvailability) return;
    const event: CatalogChangeEvent = { files };
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.opts.logger.error('catalog: onChange listener threw', { error: String(err) });
      }
    }
  }

  private entryOf(s: FileState & { good: NonNullable<FileState['good']> }, overrides: string | undefined): CatalogEntry {
    // Hooks, skills and the store follow the agent's config folder when its variable moves it.
    const m = withConfigHome(s.good.manifest, this.opts.env);
    let resolvedCommand: string | undefined;
    if (m.loginShell || m.command === undefined) resolvedCommand = this.opts.env.SHELL || '/bin/sh';
    else if (!isCommandLine(m.command)) resolvedCommand = this.resolver.resolve(m.command);
    else {
      // A command line runs through the login shell; its program is checked when it names one.
      const program = commandLineProgram(m.command);
      resolvedCommand = program !== undefined ? this.resolver.resolve(program) : this.opts.env.SHELL || '/bin/sh';
    }
    const nameWarning =
      s.source === 'user' && basename(s.file).replace(/\.json$/i, '') !== m.id
        ? [`${s.label}: id: "${m.id}" differs from the file name; ATP expects ${m.id}.json`]
        : [];
    return {
      id: m.id,
      manifest: m,
      source: s.source,
      file: s.file,
      label: s.label,
      installed: resolvedCommand !== undefined,
      ...(resolvedCommand !== undefined ? { resolvedCommand } : {}),
      ...(s.good.iconFile ? { iconFile: s.good.iconFile } : {}),
      resumeFamily: manifestResumeFamily(m),
      statusChannels: manifestStatusChannels(m),
      disabled: s.good.disabled,
      warnings: [...s.good.warnings, ...nameWarning],
      errors: s.errors,
      ...(overrides ? { overrides } : {}),
    };
  }

  private sortedStates(): FileState[] {
    return [...this.files.values()].sort((a, b) =>
      a.source === b.source ? (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) : a.source === 'bundled' ? -1 : 1,
    );
  }

  private labelOf(file: string, source: CatalogSource): string {
    if (source === 'bundled') {
      const rel = relative(installRoot, file);
      if (!rel.startsWith('..')) return rel.split(sep).join('/');
    }
    return homeLabel(file, this.opts.env);
  }
}

/** "~/…" for paths under HOME, so messages read like the paths users type. */
export function homeLabel(file: string, env: NodeJS.ProcessEnv = process.env): string {
  return shortenHome(file, resolve(env.HOME || homedir()));
}

/** One collator for every comparison (localeCompare with options builds a new one per call),
 *  made at the first: its collation data costs each process ~5 MB resident, and only a catalog
 *  with two names of the same order needs it. */
let nameCollator: Intl.Collator | null = null;

/** Picker order: `order` ascending, manifests without one last, then by name, then by id. */
export function compareEntries(a: CatalogEntry, b: CatalogEntry): number {
  const oa = a.manifest.order;
  const ob = b.manifest.order;
  if (oa !== ob) {
    if (oa === undefined) return 1;
    if (ob === undefined) return -1;
    return oa - ob;
  }
  nameCollator ??= new Intl.Collator(undefined, { sensitivity: 'base' });
  const byName = nameCollator.compare(a.manifest.name, b.manifest.name);
  if (byName) return byName;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function listJsonFiles(dir: string, bundled: boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => isManifestName(n) && !(bundled && NOT_MANIFESTS.has(n)))
    .sort()
    .map((n) => join(dir, n));
}

/** *.json, but not hidden files (editor lock files such as Emacs' ".#foo.json"). */
function isManifestName(name: string): boolean {
  return /\.json$/i.test(name) && !name.startsWith('.');
}

/** Where each agent's command resolves (empty: not installed), one line each. */
function availability(entries: readonly CatalogEntry[]): string {
  return entries.map((e) => `${e.id} ${e.resolvedCommand ?? ''}`).join('\n');
}
