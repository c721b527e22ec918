// The agent picker: an overlay in the current window, opened by the new-session shortcut and
// used entirely from the keyboard. Type to filter (fuzzy), ↑/↓ to choose, Enter to start in the
// current folder, Ctrl+B to toggle the agent's permission bypass, Ctrl+G (in a git repository) to
// start in a new worktree on its own branch (remembered per repository), Ctrl+M (with saved
// machines) to start it on another machine (remembered per folder), Ctrl+O to pick another
// folder first, Esc to close. Agents that are not installed (or whose command is another program
// of that name) show their install link instead; bundled agents Termio's release matrix has not
// run carry a muted "not verified here" at the end of their row. Fan out (in a git repository on
// this machine): Ctrl+K marks agents, Enter then asks for one prompt that each marked agent
// starts on in a new worktree of its own, and the compare view opens.
import { Direction, Key, QBoxLayout, QBrush, QColor, QIcon, QLabel, QListWidgetItem, QWidget, WidgetAttribute } from '@nodegui/nodegui';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { expandHome, shortenHome } from '../../protocol/homePath';
import { NOT_VERIFIED } from '../../protocol/verified';
import { NOT_INSTALLED } from '../services/programIdentity';
import { fuzzyFilter } from '../present/fuzzy';
import { machineFooter, nextMachine, preselectedMachine, rememberedValue, type MachineChoice } from '../present/pickerMachines';
import { agentIcon } from './agentIcons';
import { darkChrome, type ChromeColors } from './chromeStyle';
import { OverlayPanel } from './overlayPanel';

export interface PickerAgent {
  /** null = the plain login shell. */
  id: string | null;
  name: string;
  iconFile?: string;
  iconTint?: string;
  /** Why it cannot start, or null when it can: "not installed", "another program named grok"
   *  (unavailableNote, as Settings and the tray say it). */
  unavailable: string | null;
  /** A bundled agent the release matrix has not run ("not verified here"). */
  unverified?: boolean;
  installUrl?: string;
  hasBypass: boolean;
}

export interface PickerOptions {
  agents(): PickerAgent[];
  folder(): string;
  bypassDefault(agentId: string | null): boolean;
  /** `machine`: the saved machine to start it on, null for this one. */
  onStart(agentId: string | null, cwd: string, bypass: boolean, worktree: boolean, machine: string | null): void;
  /** The picker's fan-out: one prompt to each of these agents, each in a new worktree of cwd's repository. */
  onFanout(agentIds: string[], cwd: string, prompt: string): void;
  /** Where a session may start (machineChoices), the choice remembered per folder, the machine of
   *  the session whose folder the picker opens in, and what to remember after a start. */
  machines(): MachineChoice[];
  rememberedMachines(): Readonly<Record<string, string>>;
  folderMachine(): string | null;
  rememberMachine(folder: string, value: string | undefined): void;
  /** The remembered worktree choice of a repository (its top folder). */
  worktreeDefault(repo: string): boolean;
  onWorktreeToggled(repo: string, on: boolean): void;
  onInstallLink(url: string): void;
  chrome?: ChromeColors;
}

const PICKER_WIDTH_PX = 560;
const PICKER_MAX_ROWS = 9; // rows visible before the list scrolls; keeps the overlay compact
/** A refusal wraps to up to three 11 px lines in the footer: two more than the usual one. */
const PROBLEM_EXTRA_PX = 32;

export class Picker {
  private readonly panel: OverlayPanel;
  private shown: PickerAgent[] = [];
  private mode: 'agents' | 'folder' | 'prompt' = 'agents';
  /** Agents marked for a fan-out, in the order they were marked (one may be marked twice: no). */
  private marked: string[] = [];
  private folder = '';
  private bypass = new Map<string | null, boolean>();
  private filterText = '';
  /** The repository the folder is in (its top folder), or null: no worktree toggle. */
  private repo: string | null = null;
  /** Where the session will run: null = this machine. */
  private machine: string | null = null;
  /** The machine the folder is from (the current session's), what preselects without a memory. */
  private folderMachine: string | null = null;
  /** Shown in the footer until the next key: why the last start was refused. */
  private problem: string | null = null;
  /** When the last filter pass finished (benchmarks read it). */
  lastFilterMs = 0;
  private chrome: ChromeColors;

  constructor(
    parent: QWidget,
    private readonly opts: PickerOptions,
  ) {
    this.chrome = opts.chrome ?? darkChrome;
    this.panel = new OverlayPanel(parent, {
      name: 'picker',
      chrome: this.chrome,
      footer: true,
      onKey: (key, ctrl) => this.handleKey(key, ctrl),
      onActivate: () => this.activate(),
    });
    this.panel.input.addEventListener('textChanged', (text) => {
      if (this.mode === 'agents') {
        this.filterText = text;
        this.refilter();
      } else if (this.mode === 'folder') {
        this.updateFooter();
      }
    });
  }

  get widget(): QWidget {
    return this.panel.widget;
  }

  get isOpen(): boolean {
    return this.panel.isOpen;
  }

  open(folder?: string): void {
    this.mode = 'agents';
    this.setFolder(folder ?? this.opts.folder(), folder === undefined ? this.opts.folderMachine() : null);
    this.problem = null;
    this.marked = [];
    this.filterText = '';
    this.panel.input.setText('');
    this.panel.input.setPlaceholderText('Type to filter agents…');
    this.refilter();
    this.panel.show(PICKER_WIDTH_PX, this.height());
  }

  close(): void {
    this.panel.close();
  }

  /** A start from here was refused (not a repository, a dirty base…): open again on that folder, saying why. */
  reopenWithProblem(folder: string, message: string): void {
    this.open(folder);
    this.problem = message;
    this.panel.footer.setWordWrap(true);
    this.panel.place(PICKER_WIDTH_PX, this.height());
    this.updateFooter();
  }

  /** Puts this text in the filter field, as typing it would (bench/menubar.mjs times it). */
  setQuery(text: string): void {
    this.panel.input.setText(text);
  }

  setChrome(c: ChromeColors): void {
    if (c === this.chrome) return;
    this.chrome = c;
    this.panel.setChrome(c);
    // Item colours are set per item: rebuild the list if it is on screen.
    if (this.isOpen && this.mode === 'agents') this.refilter();
  }

  /** The filtered agent names, in display order (tests read it through the log). */
  visibleNames(): string[] {
    return this.shown.map((a) => a.name);
  }

  /** The note each shown row carries, by name: why it cannot start, or that it is not verified here. */
  visibleNotes(): Record<string, string> {
    return Object.fromEntries(this.shown.flatMap((a) => (a.unavailable !== null ? [[a.name, a.unavailable]] : a.unverified ? [[a.name, NOT_VERIFIED]] : [])));
  }

  /** The agent list changed (a manifest was added, edited or removed): show it at once. */
  agentsChanged(): void {
    if (this.isOpen && this.mode === 'agents') this.refilter();
  }

  /** Fits the rows shown (at least three, so the box does not jump while typing), and a refusal's lines. */
  private height(): number {
    return 118 + Math.min(PICKER_MAX_ROWS, Math.max(3, this.shown.length)) * 34 + (this.problem ? PROBLEM_EXTRA_PX : 0);
  }

  private handleKey(key: number, ctrl: boolean): boolean {
    if (this.problem) {
      this.problem = null;
      this.panel.footer.setWordWrap(false);
      this.panel.place(PICKER_WIDTH_PX, this.height());
    }
    if (key === Key.Key_Escape) {
      if (this.mode !== 'agents') this.toAgents();
      else this.close();
      return true;
    }
    if (this.mode === 'agents' && (key === Key.Key_Up || key === Key.Key_Down)) {
      this.panel.step(key === Key.Key_Down);
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_B && this.mode === 'agents') {
      const a = this.current();
      if (a?.hasBypass) this.bypass.set(a.id, !this.bypassOn(a));
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_K && this.mode === 'agents') {
      this.toggleMark();
      return true;
    }
    if (ctrl && key === Key.Key_G && this.mode === 'agents') {
      if (this.repo) this.opts.onWorktreeToggled(this.repo, !this.opts.worktreeDefault(this.repo));
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_M && this.mode === 'agents') {
      this.machine = nextMachine(this.opts.machines(), this.machine);
      this.repo = this.machine === null ? repositoryOf(this.folder) : null;
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_O && this.mode === 'agents') {
      this.mode = 'folder';
      this.panel.input.setText(this.folder);
      this.panel.input.setPlaceholderText('Folder to start in');
      this.updateFooter();
      return true;
    }
    return false;
  }

  /** Marks the current agent for a fan-out, or unmarks it; only where a fan-out can start (a repository here). */
  private toggleMark(): void {
    const a = this.current();
    if (!a?.id || a.unavailable !== null || !this.repo) {
      this.panel.footer.setText(this.repo ? '⚠ only an installed agent can be part of a fan-out' : '⚠ a fan-out starts in a git repository on this machine');
      return;
    }
    const id = a.id;
    this.marked = this.marked.includes(id) ? this.marked.filter((m) => m !== id) : [...this.marked, id];
    const row = this.panel.list.currentRow();
    this.refilter();
    this.panel.list.setCurrentRow(row);
    this.updateFooter();
  }

  /** Asks for the prompt the marked agents start on; the list shows them. */
  private toPrompt(): void {
    this.mode = 'prompt';
    this.panel.input.setText('');
    const all = this.opts.agents();
    this.paintList(this.marked.flatMap((id) => all.filter((a) => a.id === id)));
    this.panel.input.setPlaceholderText('One prompt for each, in a new worktree of its own');
    this.updateFooter();
  }

  private toAgents(): void {
    this.mode = 'agents';
    this.panel.input.setText(this.filterText);
    this.panel.input.setPlaceholderText('Type to filter agents…');
    this.refilter();
  }

  private current(): PickerAgent | undefined {
    return this.shown[this.panel.list.currentRow()];
  }

  private bypassOn(a: PickerAgent): boolean {
    return this.bypass.get(a.id) ?? this.opts.bypassDefault(a.id);
  }

  private activate(): void {
    if (this.mode === 'folder') {
      const typed = this.panel.input.text().trim() || this.folder;
      // A folder of another machine cannot be checked here: its host says if it is not one.
      const remote = this.machine !== null && typed.startsWith('/');
      const dir = remote ? typed : resolve(expandHome(typed, homedir()));
      if (remote || (isAbsolute(dir) && existsSync(dir) && statSync(dir).isDirectory())) {
        const machine = this.machine;
        // A folder typed on purpose is one of the machine it was typed for.
        this.setFolder(dir, remote ? machine : null);
        if (remote) this.machine = machine;
        this.toAgents();
      } else {
        this.panel.footer.setText(`⚠ ${dir} is not a folder`);
      }
      return;
    }
    if (this.mode === 'prompt') {
      const prompt = this.panel.input.text().trim();
      if (!prompt) return;
      this.close();
      this.opts.onFanout([...this.marked], this.folder, prompt);
      return;
    }
    if (this.marked.length > 0) return this.toPrompt();
    const a = this.current();
    if (!a) return;
    if (a.unavailable !== null) {
      if (a.installUrl) this.opts.onInstallLink(a.installUrl);
      return;
    }
    this.close();
    // The next pick in this folder starts where this one did.
    if (this.opts.machines().length > 1) this.opts.rememberMachine(this.folder, rememberedValue(this.machine, this.folderMachine));
    this.opts.onStart(a.id, this.folder, a.hasBypass && this.bypassOn(a), this.worktreeOn(), this.machine);
  }

  /** The folder a session will start in, and the machine remembered for it (else the folder's). */
  private setFolder(folder: string, folderMachine: string | null): void {
    this.folder = folder;
    this.folderMachine = folderMachine;
    this.machine = preselectedMachine(this.opts.rememberedMachines(), folder, this.opts.machines(), folderMachine);
    // A worktree is made by this machine's host: not offered for another machine's folder.
    this.repo = this.machine === null ? repositoryOf(folder) : null;
  }

  private worktreeOn(): boolean {
    return this.repo !== null && this.opts.worktreeDefault(this.repo);
  }

  private icon(file: string | undefined, tint?: string): QIcon | undefined {
    return file ? agentIcon(file, tint) : undefined;
  }

  private refilter(): void {
    const t0 = performance.now();
    this.paintList(fuzzyFilter(this.filterText, this.opts.agents(), (a) => a.name).map((r) => r.item));
    this.lastFilterMs = performance.now() - t0;
  }

  /** Shows these agents as the list's rows (a marked one with a check), the first current. */
  private paintList(agents: PickerAgent[]): void {
    const { list } = this.panel;
    this.shown = agents;
    list.clear();
    for (const a of this.shown) {
      const item = new QListWidgetItem();
      const mark = a.id !== null && this.marked.includes(a.id) ? '✓  ' : '';
      item.setText(a.unavailable === null ? `${mark}${a.name}` : `${a.name}   ·  ${a.unavailable}`);
      if (a.unavailable !== null) item.setForeground(new QBrush(new QColor(this.chrome.unavailable)));
      const icon = this.icon(a.iconFile, a.iconTint);
      if (icon) item.setIcon(icon);
      list.addItem(item);
      if (a.unavailable === null && a.unverified) list.setItemWidget(item, this.rowNote(NOT_VERIFIED));
    }
    if (this.shown.length > 0) list.setCurrentRow(0);
    if (this.isOpen) this.panel.place(PICKER_WIDTH_PX, this.height());
    this.updateFooter();
  }

  /** A note drawn over the right end of a row; clear and click-through, so the row's own name,
   *  icon and selection show beneath it as on every other row. */
  private rowNote(text: string): QWidget {
    const row = new QWidget();
    row.setAttribute(WidgetAttribute.WA_TransparentForMouseEvents, true);
    row.setInlineStyle('background: transparent;');
    const layout = new QBoxLayout(Direction.LeftToRight);
    layout.setContentsMargins(0, 0, 10, 0);
    row.setLayout(layout);
    const note = new QLabel();
    note.setText(text);
    note.setInlineStyle(`background: transparent; color: ${this.chrome.muted}; font-size: 11px;`);
    layout.addStretch(1);
    layout.addWidget(note);
    return row;
  }

  private updateFooter(): void {
    const { heading, footer } = this.panel;
    const shortFolder = shortenHome(this.folder, homedir());
    if (this.mode === 'folder') {
      heading.setText('CHOOSE A FOLDER');
      footer.setText('↵ use this folder    esc back');
      return;
    }
    if (this.mode === 'prompt') {
      heading.setText(`FAN OUT IN ${shortFolder}`);
      footer.setText(`↵ start ${this.marked.length} agent${this.marked.length === 1 ? '' : 's'}, each in a new worktree    esc back`);
      return;
    }
    heading.setText(`NEW SESSION IN ${shortFolder}`);
    const a = this.current();
    if (a && a.unavailable !== null) {
      const why = a.unavailable !== NOT_INSTALLED ? `${a.unavailable}    ` : '';
      footer.setText(a.installUrl ? `${why}↵ open the install page: ${a.installUrl}` : `${why || `${a.name} is not on your PATH    `}esc close`);
      return;
    }
    if (this.problem) {
      footer.setText(`⚠ ${this.problem.replaceAll(homedir(), '~')}`);
      return;
    }
    const bypass = a?.hasBypass ? `    ⌃B skip permissions: ${this.bypassOn(a) ? 'ON' : 'off'}` : '';
    const worktree = this.repo ? `    ⌃G new worktree: ${this.worktreeOn() ? 'ON' : 'off'}` : '';
    const machine = machineFooter(this.opts.machines(), this.machine);
    if (this.marked.length > 0) {
      footer.setText(`↵ fan out to ${this.marked.length} agent${this.marked.length === 1 ? '' : 's'}…    ⌃K mark/unmark    esc close`);
      return;
    }
    const fan = this.repo && this.machine === null ? '    ⌃K fan out' : '';
    footer.setText(this.shown.length === 0 ? 'No agent matches.    esc close' : `↵ start${bypass}${worktree}${machine}${fan}    ⌃O folder…    esc close`);
  }
}

/** The top folder of the git checkout `dir` is in (a .git folder or file), or null. */
export function repositoryOf(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return null;
  }
}
