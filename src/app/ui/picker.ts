// The agent picker: an overlay in the current window, opened by the new-session shortcut and
// used entirely from the keyboard. Type to filter (fuzzy), ↑/↓ to choose, Enter to start in the
// current folder, Ctrl+B to toggle the agent's permission bypass, Ctrl+O to pick another folder
// first, Esc to close. Agents that are not installed show their install link instead.
import { Key, QBrush, QColor, QIcon, QListWidgetItem, QWidget } from '@nodegui/nodegui';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { expandHome, shortenHome } from '../../protocol/homePath';
import { fuzzyFilter } from '../present/fuzzy';
import { agentIcon } from './agentIcons';
import { darkChrome, type ChromeColors } from './chromeStyle';
import { OverlayPanel } from './overlayPanel';

export interface PickerAgent {
  /** null = the plain login shell. */
  id: string | null;
  name: string;
  iconFile?: string;
  iconTint?: string;
  installed: boolean;
  installUrl?: string;
  hasBypass: boolean;
}

export interface PickerOptions {
  agents(): PickerAgent[];
  folder(): string;
  bypassDefault(agentId: string | null): boolean;
  onStart(agentId: string | null, cwd: string, bypass: boolean): void;
  onInstallLink(url: string): void;
  chrome?: ChromeColors;
}

const PICKER_WIDTH_PX = 560;
const PICKER_MAX_ROWS = 9; // rows visible before the list scrolls; keeps the overlay compact

export class Picker {
  private readonly panel: OverlayPanel;
  private shown: PickerAgent[] = [];
  private mode: 'agents' | 'folder' = 'agents';
  private folder = '';
  private bypass = new Map<string | null, boolean>();
  private filterText = '';
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
      } else {
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

  open(): void {
    this.mode = 'agents';
    this.folder = this.opts.folder();
    this.filterText = '';
    this.panel.input.setText('');
    this.panel.input.setPlaceholderText('Type to filter agents…');
    this.refilter();
    this.panel.show(PICKER_WIDTH_PX, this.height());
  }

  close(): void {
    this.panel.close();
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

  /** The agent list changed (a manifest was added, edited or removed): show it at once. */
  agentsChanged(): void {
    if (this.isOpen && this.mode === 'agents') this.refilter();
  }

  /** Fits the rows shown (at least three, so the box does not jump while typing). */
  private height(): number {
    return 118 + Math.min(PICKER_MAX_ROWS, Math.max(3, this.shown.length)) * 34;
  }

  private handleKey(key: number, ctrl: boolean): boolean {
    if (key === Key.Key_Escape) {
      if (this.mode === 'folder') this.toAgents();
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
    if (ctrl && key === Key.Key_O && this.mode === 'agents') {
      this.mode = 'folder';
      this.panel.input.setText(this.folder);
      this.panel.input.setPlaceholderText('Folder to start in');
      this.updateFooter();
      return true;
    }
    return false;
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
      const dir = resolve(expandHome(this.panel.input.text().trim() || this.folder, homedir()));
      if (isAbsolute(dir) && existsSync(dir) && statSync(dir).isDirectory()) {
        this.folder = dir;
        this.toAgents();
      } else {
        this.panel.footer.setText(`⚠ ${dir} is not a folder`);
      }
      return;
    }
    const a = this.current();
    if (!a) return;
    if (!a.installed) {
      if (a.installUrl) this.opts.onInstallLink(a.installUrl);
      return;
    }
    this.close();
    this.opts.onStart(a.id, this.folder, a.hasBypass && this.bypassOn(a));
  }

  private icon(file: string | undefined, tint?: string): QIcon | undefined {
    return file ? agentIcon(file, tint) : undefined;
  }

  private refilter(): void {
    const t0 = performance.now();
    const { list } = this.panel;
    this.shown = fuzzyFilter(this.filterText, this.opts.agents(), (a) => a.name).map((r) => r.item);
    list.clear();
    for (const a of this.shown) {
      const item = new QListWidgetItem();
      item.setText(a.installed ? a.name : `${a.name}   ·  not installed`);
      if (!a.installed) item.setForeground(new QBrush(new QColor(this.chrome.unavailable)));
      const icon = this.icon(a.iconFile, a.iconTint);
      if (icon) item.setIcon(icon);
      list.addItem(item);
    }
    if (this.shown.length > 0) list.setCurrentRow(0);
    if (this.isOpen) this.panel.place(PICKER_WIDTH_PX, this.height());
    this.updateFooter();
    this.lastFilterMs = performance.now() - t0;
  }

  private updateFooter(): void {
    const { heading, footer } = this.panel;
    const shortFolder = shortenHome(this.folder, homedir());
    if (this.mode === 'folder') {
      heading.setText('CHOOSE A FOLDER');
      footer.setText('↵ use this folder    esc back');
      return;
    }
    heading.setText(`NEW SESSION IN ${shortFolder}`);
    const a = this.current();
    if (a && !a.installed) {
      footer.setText(a.installUrl ? `↵ open the install page: ${a.installUrl}` : `${a.name} is not on your PATH    esc close`);
      return;
    }
    const bypass = a?.hasBypass ? `    ⌃B skip permissions: ${this.bypassOn(a) ? 'ON' : 'off'}` : '';
    footer.setText(this.shown.length === 0 ? 'No agent matches.    esc close' : `↵ start${bypass}    ⌃O folder…    esc close`);
  }
}
