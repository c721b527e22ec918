// A widget laid out as one row or one column, with its margins and spacing, and a wrapping text
// label: the few lines every window, page and panel would otherwise repeat to build one.
import { Direction, QBoxLayout, QLabel, QWidget } from '@nodegui/nodegui';

export interface BoxOptions {
  /** Object name, for the style sheets. */
  name?: string;
  /** Left, top, right, bottom in px (one number: all four). Default 0. */
  margins?: number | [number, number, number, number];
  /** Between children, in px. Default 0. */
  spacing?: number;
}

export function boxWidget(direction: 'row' | 'column', opts: BoxOptions = {}): { widget: QWidget; layout: QBoxLayout } {
  const widget = new QWidget();
  if (opts.name) widget.setObjectName(opts.name);
  const layout = new QBoxLayout(direction === 'row' ? Direction.LeftToRight : Direction.TopToBottom);
  const m = opts.margins ?? 0;
  const [l, t, r, b] = typeof m === 'number' ? [m, m, m, m] : m;
  layout.setContentsMargins(l, t, r, b);
  layout.setSpacing(opts.spacing ?? 0);
  widget.setLayout(layout);
  return { widget, layout };
}

/** A label with a style-sheet name (settingsText, settingsMuted, settingsHeading, …), wrapping
 *  its words unless `wrap` is false (a table's cell). */
export function label(text: string, name = 'settingsText', wrap = true): QLabel {
  const l = new QLabel();
  l.setObjectName(name);
  l.setText(text);
  l.setWordWrap(wrap);
  return l;
}
