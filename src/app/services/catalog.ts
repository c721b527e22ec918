// The agent catalog: bundled manifests (agents/) plus the user's ($TERMIO_HOME/config/agents/*.json),
// a user manifest overriding a bundled one with the same id. User files are watched: adding,
// editing or deleting one shows up without a restart; a file that turns invalid keeps its last
// good version loaded while its errors are shown. Plain data out (list/get/problems) plus onChange.
// Each agent's program is asked what it is when its manifest says how (`identify`), and each
// bundled agent carries what agents/verified.json says the release matrix ran it on.
import { withConfigHome } from '../../protocol/configHome';
import { commandLineProgram, isCommandLine } from '../../protocol/commandLine';
import type { Disposable } from '../../protocol/events';
import { readdir, readFile } from 'node:fs/promises';
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
import { parseVerifiedFile, verificationOf, VERIFIED_FILE_NAME, type Verification, type VerifiedFile } from '../../protocol/verified';
import { identifyArgs, identityOf, ProgramAnswers, type Asked, type ProgramAnswer, type ProgramIdentity } from './programIdentity';

/** This installation's root (src/app/host and dist/app/host both sit three levels down). */
export const DEFAULT_BUNDLED_AGENTS_DIR = installPath('agents');
/** What programs answered when asked what they are, in the state folder. */
const PROGRAM_ANSWERS_FILE = 'program-answers.json';
/** The generated JSON Schema and the release matrix's results sit beside the bundled manifests; neither is a manifest. */
export const NOT_MANIFESTS: readonly string[] = ['manifest.schema.json', VERIFIED_FILE_NAME];
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
  /** The command was found on the login shell's PATH and is not another program of that name
   *  (always true for the login-shell Terminal). */
  installed: boolean;
  /** Absolute path of the command (or of $SHELL for the Terminal), when it resolves: also when
   *  identity says the program there is another one (then installed is false). */
  resolvedCommand?: string;
  /** Whether the resolved program is the one the manifest means (its `identify` rule). */
  identity: ProgramIdentity;
  /** Bundled agents: the releases the release matrix ran for real (agents/verified.json), or null
   *  when it did not run this one ("not verified here"). Undefined for the user's manifests and
   *  the plain Terminal. */
  verified?: Verification | null;
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
  /** The release matrix's results; defaults to verified.json in bundledDir. */
  verifiedFile?: string;
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
  /** What each program said when asked what it is, by program file (kept for other processes too). */
  private readonly answers: ProgramAnswers;
  /** Answers being waited for; each rebuilds the catalog once it comes. */
  private readonly awaited = new Set<Promise<unknown>>();
  /** The answer each agent's entry waits for, by agent id. */
  private readonly asking = new Map<string, Asked>();
  /** agents/verified.json as read at start (null: missing or broken, so nothing is verified). */
  private verified: VerifiedFile | null = null;

  private constructor(
    private readonly opts: Required<Pick<CatalogOptions, 'bundledDir' | 'userDir' | 'iconsDir' | 'verifiedFile'>> & {
      env: NodeJS.ProcessEnv;
      path: string;
      logger: Logger;
    },
  ) {
    this.path = opts.path;
    this.resolver = createCommandResolver(opts.path, opts.env);
    this.answers = new ProgramAnswers(join(termioPaths(opts.env).stateDir, PROGRAM_ANSWERS_FILE));
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
    const bundledDir = resolve(options.bundledDir ?? DEFAULT_BUNDLED_AGENTS_DIR);
    const catalog = new AgentCatalog({
      env,
      logger,
      path,
      bundledDir,
      verifiedFile: resolve(options.verifiedFile ?? join(bundledDir, VERIFIED_FILE_NAME)),
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

  /** What a program says to args, asked as `identify` asks: once per program file, on the PATH
   *  agents' commands resolve on, kept for other processes (the host names a release whose hooks
   *  stay silent by its `--version` this way, usually the answer identify already has). */
  answerOf(program: string, args: readonly string[]): Promise<ProgramAnswer> {
    return this.answers.get(program, args, this.programEnv()).promise;
  }

  /** Waits until every reload that has started is applied (tests, and the CLI before it exits). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }

  /** Waits until the programs asked what they are have answered (or been given up on): every
   *  agent's, or with `id` that agent's alone (asked before the others). Then no such entry is
   *  "checking". The CLI waits for all before it lists; a session for its agent's before it starts. */
  async identified(id?: string): Promise<void> {
    if (id === undefined) {
      while (this.awaited.size) await Promise.all([...this.awaited]);
      return;
    }
    for (let asked = this.asking.get(id); asked && !asked.answer; asked = this.asking.get(id)) {
      asked.hurry();
      await asked.promise;
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.listeners.clear();
    const w = this.watcher;
    this.watcher = undefined;
    if (w) await w.close();
    // Programs still being asked what they are are ended: none outlives us.
    this.answers.close();
    await Promise.allSettled([...this.pending.values(), ...this.awaited]);
  }

  // -------------------------------------------------------------------------------------------

  private async loadAll(): Promise<void> {
    const [bundled, user] = await Promise.all([listJsonFiles(this.opts.bundledDir, true), listJsonFiles(this.opts.userDir, false)]);
    await Promise.all([...bundled.map((f) => this.loadFile(f, 'bundled')), ...user.map((f) => this.loadFile(f, 'user')), this.loadVerified()]);
    this.rebuild([]);
  }

  /** Reads agents/verified.json; a missing or broken one marks every bundled agent not verified, and says so in the log. */
  private async loadVerified(): Promise<void> {
    const file = this.opts.verifiedFile;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      this.opts.logger.warn('catalog: no bundled agent is verified here', { file, problem: missing ? 'the file is missing' : String(err) });
      return;
    }
    const parsed = parseVerifiedFile(text, this.labelOf(file, 'bundled'));
    if (parsed.ok) this.verified = parsed.file;
    else this.opts.logger.warn('catalog: no bundled agent is verified here', { file, problem: parsed.error });
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
          iconFile: result.iconFile || undefined,
        },
        errors: [],
        warnings: [],
      });
    } else {
      this.files.set(file, { file, source, label, good: previous?.good || undefined, errors: result.errors, warnings: result.warnings });
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
    // The agent's own program: the command, or the program a command line names (a command line
    // runs through the login shell). None for the Terminal, or when the shell decides it ("FOO=1 x").
    const own = m.loginShell || m.command === undefined ? undefined : isCommandLine(m.command) ? commandLineProgram(m.command) : m.command;
    const program = own !== undefined ? this.resolver.resolve(own) : undefined;
    const resolvedCommand = own !== undefined ? program : this.opts.env.SHELL || '/bin/sh';
    const identity = this.identityOf(m, program);
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
      installed: resolvedCommand !== undefined && identity.state !== 'other',
      resolvedCommand,
      identity,
      // The plain Terminal is no agent CLI: nothing to verify.
      verified: s.source === 'bundled' && m.command !== undefined && !m.loginShell ? verificationOf(this.verified, m.id) : undefined,
      iconFile: s.good.iconFile || undefined,
      resumeFamily: manifestResumeFamily(m),
      statusChannels: manifestStatusChannels(m),
      disabled: s.good.disabled,
      warnings: [...s.good.warnings, ...nameWarning],
      errors: s.errors,
      overrides: overrides || undefined,
    };
  }

  /** What the agent's program (resolved on PATH) says it is, under the manifest's identify rule; an
   *  answer still to come rebuilds the catalog when it comes (listeners hear of it when it changes
   *  an entry). The login shell standing in for a command line is never asked. */
  private identityOf(m: Manifest, resolved: string | undefined): ProgramIdentity {
    this.asking.delete(m.id);
    if (!m.identify || resolved === undefined) return { state: 'unchecked' };
    const asked = this.answers.get(resolved, identifyArgs(m.identify), this.programEnv());
    this.asking.set(m.id, asked);
    if (!asked.answer && !this.awaited.has(asked.promise)) {
      this.awaited.add(asked.promise);
      void asked.promise.then((answer) => {
        this.awaited.delete(asked.promise);
        if (!answer.ok && !this.disposed)
          this.opts.logger.warn('catalog: could not tell what a program is; it starts as before', { program: resolved, problem: answer.reason });
        if (!this.disposed) this.rebuild([], availability(this.entries));
      });
    }
    return identityOf(m.identify, asked.answer);
  }

  /** A program asked what it is runs on the PATH it was found on (a Node CLI's `env node` needs it too). */
  private programEnv(): NodeJS.ProcessEnv {
    return { ...this.opts.env, PATH: this.path };
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
    .filter((n) => isManifestName(n) && !(bundled && NOT_MANIFESTS.includes(n)))
    .sort()
    .map((n) => join(dir, n));
}

/** *.json, but not hidden files (editor lock files such as Emacs' ".#foo.json"). */
function isManifestName(name: string): boolean {
  return /\.json$/i.test(name) && !name.startsWith('.');
}

/** Where each agent's command resolves (empty: not installed) and what the program there is, one line each. */
function availability(entries: readonly CatalogEntry[]): string {
  return entries.map((e) => `${e.id} ${e.identity.state} ${e.resolvedCommand ?? ''}`).join('\n');
}
