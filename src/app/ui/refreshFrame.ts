// What the fan-out compare and usage windows share below their heading: a scrolled body whose
// content stays at the top, and a foot with a status line and Refresh (also ⌘R, Ctrl+R elsewhere).
import { QKeySequence, QScrollArea, QShortcut, type QBoxLayout, type QLabel, type QMainWindow, type QWidget } from '@nodegui/nodegui';
import { boxWidget } from './boxWidget';
import { button } from './reviewCommentsPanel';

export interface RefreshFrameOptions {
  /** Prefix of the parts' style-sheet names: `<prefix>Scroll`, `<prefix>Status`, `<prefix>Refresh`. */
  prefix: string;
  body: { widget: QWidget; layout: QBoxLayout };
  status: QLabel;
  /** Space between the heading and the body, in px. */
  gap: number;
  refresh: () => void;
}

/** Adds the body and the foot to `layout`, and the refresh key to `window`. */
export function addRefreshFrame(window: QMainWindow, layout: QBoxLayout, o: RefreshFrameOptions): QShortcut {
  const scroll = new QScrollArea();
  scroll.setObjectName(`${o.prefix}Scroll`);
  scroll.setWidgetResizable(true);
  scroll.setWidget(o.body.widget);
  o.body.layout.addStretch(1);
  layout.addSpacing(o.gap);
  layout.addWidget(scroll, 1);
  const { widget: foot, layout: footRow } = boxWidget('row', { spacing: 8 });
  o.status.setObjectName(`${o.prefix}Status`);
  o.status.setWordWrap(true);
  footRow.addWidget(o.status, 1);
  footRow.addWidget(button('Refresh', `${o.prefix}Refresh`, o.refresh));
  layout.addWidget(foot);
  const key = new QShortcut(window);
  key.setKey(new QKeySequence('Ctrl+R'));
  key.addEventListener('activated', o.refresh);
  return key;
}
