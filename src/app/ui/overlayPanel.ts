// The keyboard overlay the agent picker and quick open are both made of: a card over the
// window's content with a heading, one line of input, a list and, if asked, a footer, centred
// near the top of its parent. Its owner decides what the keys mean and what the list holds.
import {
  Direction,
  Key,
  KeyboardModifier,
  QBoxLayout,
  QKeyEvent,
  QLabel,
  QLineEdit,
  QListWidget,
  QWidget,
  ScrollBarPolicy,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import { overlayStyleSheet, type ChromeColors } from './chromeStyle';

/** Gap between the parent's top edge and the card. */
const TOP_PX = 60;

export interface OverlayPanelOptions {
  /** Object-name prefix of the card and its parts, which the style sheet targets ("picker" → #pickerInput). */
  name: string;
  chrome: ChromeColors;
  footer?: boolean;
  /** A key pressed in the input; true when handled (the input then ignores it). */
  onKey(key: number, ctrl: boolean): boolean;
  /** Enter, or a double-click on a list row. */
  onActivate(): void;
}

export class OverlayPanel {
  readonly widget = new QWidget();
  readonly heading = new QLabel();
  readonly input = new QLineEdit();
  readonly list = new QListWidget();
  readonly footer = new QLabel();

  constructor(
    private readonly parent: QWidget,
    private readonly opts: OverlayPanelOptions,
  ) {
    const { name } = opts;
    this.widget.setParent(parent);
    this.widget.setObjectName(name);
    this.setChrome(opts.chrome);
    const col = new QBoxLayout(Direction.TopToBottom);
    col.setContentsMargins(12, 10, 12, 10);
    col.setSpacing(8);
    this.widget.setLayout(col);
    this.heading.setObjectName(`${name}Heading`);
    this.input.setObjectName(`${name}Input`);
    this.list.setObjectName(`${name}List`);
    this.footer.setObjectName(`${name}Footer`);
    this.list.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    col.addWidget(this.heading);
    col.addWidget(this.input);
    col.addWidget(this.list, 1);
    if (opts.footer) col.addWidget(this.footer);
    this.input.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      const key = e.key();
      const handled =
        key === Key.Key_Return || key === Key.Key_Enter ? (opts.onActivate(), true) : opts.onKey(key, (e.modifiers() & KeyboardModifier.ControlModifier) !== 0);
      if (handled) this.input.setEventProcessed(true);
    });
    this.list.addEventListener('itemActivated', () => opts.onActivate());
    this.widget.hide();
  }

  get isOpen(): boolean {
    return this.widget.isVisible();
  }

  setChrome(c: ChromeColors): void {
    this.widget.setStyleSheet(overlayStyleSheet(c, this.opts.name));
  }

  /** Selects the next (or previous) row, wrapping around. */
  step(down: boolean): void {
    const n = this.list.count();
    if (n > 0) this.list.setCurrentRow((this.list.currentRow() + (down ? 1 : -1) + n) % n);
  }

  /** Sizes the card and centres it horizontally near the top of the parent. */
  place(width: number, height: number): void {
    const pw = this.parent.geometry().width();
    this.widget.setGeometry(Math.max(0, Math.round((pw - width) / 2)), TOP_PX, width, height);
  }

  /** Shows the card at that size, above its siblings, with the input focused. */
  show(width: number, height: number): void {
    this.place(width, height);
    this.widget.show();
    this.widget.raise();
    this.input.setFocus();
  }

  close(): void {
    this.widget.hide();
  }
}
