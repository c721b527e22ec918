// Builds the application menu bar from appMenuSpec's entries: one parentless QMenuBar, which
// macOS shares between every window and merges role actions (Quit) into the app menu.
import { QAction, QKeySequence, QMenu, QMenuBar } from '@nodegui/nodegui';
import type { AppMenuCommand, AppMenuItem } from './appMenuSpec';

export interface AppMenu {
  bar: QMenuBar;
  /** The actions by command (tests read their role and shortcut back from Qt). */
  actions: Map<AppMenuCommand, QAction>;
}

/** The menu bar for items, or null when there are none (every platform but macOS). */
export function installAppMenu(items: AppMenuItem[], run: Record<AppMenuCommand, () => void>): AppMenu | null {
  if (items.length === 0) return null;
  const bar = new QMenuBar();
  const menu = new QMenu();
  // Qt moves role actions into the application menu and hides this one once it is empty.
  menu.setTitle('Termio');
  const actions = new Map<AppMenuCommand, QAction>();
  for (const item of items) {
    const a = new QAction();
    a.setText(item.text);
    a.setProperty('menuRole', item.role);
    a.setShortcut(new QKeySequence(item.shortcut));
    a.addEventListener('triggered', () => run[item.command]());
    menu.addAction(a);
    actions.set(item.command, a);
  }
  bar.addMenu(menu);
  return { bar, actions };
}
