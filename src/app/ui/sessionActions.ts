// What the user's commands do to sessions: start one (from the picker, the tray or "new like
// this"), close one (asking first when it started others), cycle, jump to, rename and resume.
import { homedir } from 'node:os';
import type { AppHost } from '../client/appHost';
import type { Logger } from '../shared/log';
import type { AppSessionRecord } from '../client/remoteRegistry';
import type { MainWindow } from './mainWindow';
import { closePrompt, jumpItems, jumpTitle, renameTitle } from '../present/sessionPrompts';
import type { SessionWindows, WindowAction } from './sessionWindows';

export interface SessionActionsOptions {
  host: AppHost;
  windows: SessionWindows;
  log: Logger;
  showSettings(): void;
}

export class SessionActions {
  constructor(private readonly opts: SessionActionsOptions) {}

  private get host(): AppHost {
    return this.opts.host;
  }

  private agentName = (id: string | null): string => this.host.agentName(id);

  /** Starts a session in the active window (its current folder unless `cwd` is given) and focuses it. */
  async newSession(agentId: string | null, cwd: string | null, bypass = false): Promise<void> {
    const windows = this.opts.windows;
    const win = windows.active ?? windows.showWindow();
    const folder = cwd ?? windows.currentFolder(win);
    const r = await this.host.launch(agentId, folder, bypass, win.id);
    if (!r.ok) {
      this.opts.log.warn('spawn failed', { agentId, cwd: folder, message: r.message });
      win.showMessage(r.message);
    } else this.host.registry.requestFocus(r.record.id);
  }

  /** A shortcut, menu or exit-bar action in `win`, about session `id` when it names one. */
  async handle(win: MainWindow, action: WindowAction, id: string | null): Promise<void> {
    const windows = this.opts.windows;
    windows.active = win;
    const record = id ? this.host.registry.get(id) : undefined;
    switch (action) {
      case 'newSession':
        return win.openPicker();
      case 'new':
        return this.newSession(record?.agentId ?? null, record?.cwd ?? null);
      case 'resume':
        if (id) await this.host.relaunch(id);
        return;
      case 'closeSession':
      case 'close':
        if (id) this.closeSession(win, id);
        return;
      case 'nextSession':
      case 'previousSession':
        return this.cycle(win, id, action === 'nextSession' ? 1 : -1);
      case 'newWindow':
        windows.openWindow();
        return;
      case 'jumpToSession':
        return this.jumpToSession(win);
      case 'renameSession':
        if (id) win.quick.openText(renameTitle, record?.title || this.agentName(record?.agentId ?? null), (title) => this.host.rename(id, title));
        return;
      case 'settings':
        return this.opts.showSettings();
      default:
        // closeWindow, find, copy and paste: the window and the terminal view handle those themselves.
        this.opts.log.debug('action handled elsewhere', { action });
    }
  }

  /** Focuses the next (or previous) session of the window, wrapping around. */
  private cycle(win: MainWindow, id: string | null, step: 1 | -1): void {
    const ids = this.opts.windows.sessionIds(win);
    if (ids.length === 0) return;
    const at = id ? ids.indexOf(id) : -1;
    const next = ids[(at + step + ids.length) % ids.length];
    if (next) this.opts.windows.focusSession(next);
  }

  /** Closes a session; one that started others asks first whether they go too (Esc keeps all). */
  private closeSession(win: MainWindow, id: string): void {
    const reg = this.host.registry;
    const descendants = (of: string): AppSessionRecord[] => reg.children(of).flatMap((c) => [c, ...descendants(c.id)]);
    const started = descendants(id);
    if (started.length === 0) {
      reg.close(id);
      return;
    }
    this.opts.log.info('close asks about started sessions', { id, started: started.map((c) => c.id) });
    const prompt = closePrompt(started, this.agentName);
    win.quick.openList(
      prompt.title,
      prompt.items,
      (choice) => {
        for (const c of choice === 'all' ? started : []) reg.close(c.id);
        reg.close(id);
      },
      prompt.hint,
    );
  }

  /** Every session in every window, filtered by name, folder or agent; Enter focuses it. */
  jumpToSession(win: MainWindow): void {
    win.quick.openList(jumpTitle, jumpItems(this.host.registry.list(), this.agentName, homedir()), (id) => this.opts.windows.focusSession(id));
  }
}
