// The menu-bar (tray) icon and its menu. Issue 7 grows it into the aggregate status view;
// today it offers Show Termio and Quit, which is what a menu-bar app needs to be usable.
import { QAction, QIcon, QMenu, QSystemTrayIcon, QSystemTrayIconActivationReason } from '@nodegui/nodegui';
import { join } from 'node:path';
import { appRoot } from '../platform';

export interface TrayOptions {
  onShow(): void;
  onQuit(): void;
}

export class Tray {
  readonly icon = new QSystemTrayIcon();
  readonly menu = new QMenu();
  private readonly actions: QAction[] = [];

  constructor(opts: TrayOptions) {
    this.icon.setIcon(new QIcon(join(appRoot, 'assets', 'brand', 'termio.svg')));
    this.icon.setToolTip('Termio');
    this.addAction('Show Termio', opts.onShow);
    this.menu.addSeparator();
    this.addAction('Quit Termio', opts.onQuit);
    this.icon.setContextMenu(this.menu);
    this.icon.addEventListener('activated', (reason) => {
      if (reason === QSystemTrayIconActivationReason.Trigger) opts.onShow();
    });
    this.icon.show();
  }

  private addAction(text: string, handler: () => void): void {
    const action = new QAction();
    action.setText(text);
    action.addEventListener('triggered', handler);
    this.menu.addAction(action);
    this.actions.push(action);
  }

  dispose(): void {
    this.icon.hide();
  }
}
