// The Termio app: owns the Qt application object, the windows and the tray, and the quit path
// (Quit action, SIGTERM, SIGINT) that disposes every session and exits within a bounded time.
import { QApplication } from '@nodegui/nodegui';
import { join } from 'node:path';
import type { QtRuntime } from '../platform';
import { createLogger, type Logger } from '../host/log';
import { termioPaths } from '../host/paths';
import { MainWindow } from './mainWindow';
import { Tray } from './tray';

/** If disposing sessions hangs (a pty that will not die), exit anyway after this long; the
 * issue allows 2 s from SIGTERM to exit, and we leave headroom for process teardown. */
const QUIT_DEADLINE_MS = 1_500;

export class TermioApp {
  readonly log: Logger;
  readonly qApp = QApplication.instance();
  readonly windows = new Set<MainWindow>();
  readonly tray: Tray;
  private quitting = false;

  constructor(private readonly runtime: QtRuntime) {
    const paths = termioPaths();
    this.log = createLogger(join(paths.logsDir, 'termio.log'), { stderr: process.env.TERMIO_LOG_STDERR === '1' });
    this.qApp.setQuitOnLastWindowClosed(false);
    this.tray = new Tray({ onShow: () => this.showWindow(), onQuit: () => void this.quit('menu') });
    this.log.info('app started', { pid: process.pid, runtime: runtime.kind });
  }

  /** Raises the most recent window, or opens one when none is visible (dock click / relaunch). */
  showWindow(): MainWindow {
    const visible = [...this.windows].filter((w) => w.isVisible());
    const win = visible.at(-1) ?? this.openWindow();
    win.raise();
    return win;
  }

  openWindow(): MainWindow {
    const win = new MainWindow({ log: this.log, onClosed: () => this.log.info('window closed') });
    this.windows.add(win);
    win.show();
    return win;
  }

  async quit(reason: string): Promise<void> {
    if (this.quitting) return;
    this.quitting = true;
    this.log.info('quitting', { reason });
    const deadline = setTimeout(() => {
      this.log.warn('quit deadline passed; exiting anyway');
      process.exit(0);
    }, QUIT_DEADLINE_MS);
    try {
      for (const w of this.windows) w.dispose();
      this.windows.clear();
      this.tray.dispose();
    } finally {
      clearTimeout(deadline);
      this.runtime.stop();
      process.exit(0);
    }
  }
}

export function runTermio(runtime: QtRuntime): TermioApp {
  const app = new TermioApp(runtime);
  // Strong reference for the app's lifetime: NodeGUI objects die with their JS wrappers.
  (globalThis as { termio?: TermioApp }).termio = app;
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void app.quit(sig));
  app.openWindow();
  return app;
}
