// A small keyboard overlay for one line of input, with or without a filtered list: "jump to a
// session by name" (type, ↑/↓, Enter) and "rename session" (type, Enter). Esc closes.
import { Key, QListWidgetItem, QWidget } from '@nodegui/nodegui';
import { fuzzyFilter } from '../present/fuzzy';
import { darkChrome, type ChromeColors } from './chromeStyle';
import { OverlayPanel } from './overlayPanel';

export interface QuickItem {
  id: string;
  label: string;
  detail: string;
}

const WIDTH_PX = 520;

export class QuickOpen {
  private readonly panel: OverlayPanel;
  private items: QuickItem[] = [];
  private shown: QuickItem[] = [];
  private onChoose: ((value: string) => void) | null = null;
  private withList = true;

  constructor(parent: QWidget, chrome: ChromeColors = darkChrome) {
    this.panel = new OverlayPanel(parent, {
      name: 'quick',
      chrome,
      onActivate: () => this.choose(),
      onKey: (key) => {
        if (key === Key.Key_Escape) this.close();
        else if (this.withList && (key === Key.Key_Up || key === Key.Key_Down)) this.panel.step(key === Key.Key_Down);
        else return false;
        return true;
      },
    });
    this.panel.input.addEventListener('textChanged', () => this.refilter());
  }

  get widget(): QWidget {
    return this.panel.widget;
  }

  setChrome(c: ChromeColors): void {
    this.panel.setChrome(c);
  }

  get isOpen(): boolean {
    return this.panel.isOpen;
  }

  /** A filtered list; Enter chooses the selected item's id. */
  openList(heading: string, items: QuickItem[], onChoose: (id: string) => void, placeholder = 'Type a name, a folder or an agent…'): void {
    this.withList = true;
    this.items = items;
    this.open(heading, '', placeholder, onChoose);
  }

  /** One line of text; Enter chooses it. */
  openText(heading: string, value: string, onChoose: (text: string) => void): void {
    this.withList = false;
    this.items = [];
    this.open(heading, value, '', onChoose);
    this.panel.input.selectAll();
  }

  private open(heading: string, value: string, placeholder: string, onChoose: (v: string) => void): void {
    const { heading: title, input, list } = this.panel;
    title.setText(heading);
    this.onChoose = onChoose;
    input.setText(value);
    input.setPlaceholderText(placeholder);
    if (this.withList) list.show();
    else list.hide();
    this.refilter();
    const rows = this.withList ? Math.min(8, Math.max(3, this.shown.length)) : 0;
    this.panel.show(WIDTH_PX, 84 + (rows ? 12 + rows * 34 : 0));
  }

  close(): void {
    this.panel.close();
  }

  private refilter(): void {
    if (!this.withList) return;
    const { input, list } = this.panel;
    this.shown = fuzzyFilter(input.text(), this.items, (i) => [i.label, i.detail]).map((r) => r.item);
    list.clear();
    for (const i of this.shown) {
      const item = new QListWidgetItem();
      item.setText(`${i.label}    ${i.detail}`);
      list.addItem(item);
    }
    if (this.shown.length) list.setCurrentRow(0);
  }

  private choose(): void {
    const cb = this.onChoose;
    if (!cb) return;
    if (this.withList) {
      const item = this.shown[this.panel.list.currentRow()];
      if (!item) return;
      this.close();
      cb(item.id);
    } else {
      const text = this.panel.input.text().trim();
      this.close();
      if (text) cb(text);
    }
  }
}
