// What the user's commands do to sessions: start one (from the picker, the tray or "new like
// this"), close one (asking first when it started others, and what becomes of its worktree),
// cycle, jump to, rename, resume, review a worktree session's changes, and fan one prompt out to
// several agents and compare what they did.
import { homedir } from 'node:os';
import type { AppHost } from '../client/appHost';
import type { Logger } from '../services/log';
import type { AppSessionRecord } from '../client/remoteRegistry';
import type { MainWindow } from './mainWindow';
import { closePrompt, jumpItems, jumpTitle, renameTitle } from '../present/sessionPrompts';
import type { SessionWindows, WindowAction } from './sessionWindows';
import type { ChromeColors } from './chromeStyle';
import { CompareWindow } from './compareWindow';
import { ReviewWindow } from './reviewWindow';
import { worktreeClosePrompt, worktreeForcePrompt } from '../present/worktreePrompts';

/** The app's windows other than the session windows that a shortcut opens. */
export type AppWindow = 'settings' | 'usage' | 'history';

export interface SessionActionsOptions {
  host: AppHost;
  windows: SessionWindows;
  log: Logger;
  /** Opens Settings, the Usage window or the History pane. */
  open(window: AppWindow): void;
  chrome(): ChromeColors;
}

export class SessionActions {
  /** Open review views, by session. */
  private readonly reviews = new Map<string, ReviewWindow>();
  /** Open compare views, by fan-out group. */
  private readonly compares = new Map<string, CompareWindow>();

  constructor(private readonly opts: SessionActionsOptions) {}

  private get host(): AppHost {
    return this.opts.host;
  }

  private agentName = (id: string | null): string => this.host.agentName(id);

  /** Starts a session in the active window (its current folder unless `cwd` is given) and focuses it. */
  async newSession(agentId: string | null, cwd: string | null, bypass = false, worktree = false, machine: string | null = null): Promise<void> {
    const windows = this.opts.windows;
    const win = windows.active ?? windows.showWindow();
    const folder = cwd ?? windows.currentFolder(win);
    const r = await this.host.launch(agentId, folder, bypass, win.id, worktree, machine);
    if (!r.ok) {
      this.opts.log.warn('spawn failed', { agentId, cwd: folder, worktree, machine, message: r.message });
      // A refused worktree is told where it was asked for: the picker, open again on the same folder.
      if (worktree) {
        win.picker.reopenWithProblem(folder, r.message);
        this.opts.log.info('picker shows a refusal', { cwd: folder });
      } else win.showMessage(r.message);
    } else this.host.registry.requestFocus(r.record.id);
  }

  /** The review view of a worktree session (one per session; a second ask brings it forward). */
  async review(id: string): Promise<void> {
    const record = this.host.registry.get(id);
    if (!record?.worktree) {
      this.opts.windows.active?.showMessage(
        'The session does not work in a git worktree: start one with the worktree toggle in the picker to review its changes.',
      );
      return;
    }
    let view = this.reviews.get(id);
    if (!view) {
      view = new ReviewWindow({
        host: this.host,
        sessionId: id,
        chrome: this.opts.chrome(),
        monoFont: this.host.settings.settings.terminal.fontFamily,
        log: (m, f) => this.opts.log.info(m, f),
      });
      this.reviews.set(id, view);
    }
    await view.open();
  }

  /** Starts one prompt in a new worktree per agent (the picker's fan-out), then compares them. */
  async fanout(agents: string[], cwd: string, prompt: string): Promise<void> {
    const win = this.opts.windows.active ?? this.opts.windows.showWindow();
    const r = await this.host.fanout('sessions.fanout', { agents, prompt, cwd });
    if (!r.ok) {
      this.opts.log.warn('fan-out failed', { agents, cwd, message: r.message });
      win.picker.reopenWithProblem(cwd, r.message);
      return;
    }
    this.opts.log.info('fan-out started', { group: r.result.group.id, branches: r.result.group.members.map((m) => m.branch) });
    const first = r.result.group.members[0];
    if (first) this.host.registry.requestFocus(first.sessionId);
    await this.compare(r.result.group.id);
  }

  /** The compare view of a fan-out group (one per group; a second ask brings it forward). */
  async compare(group: string): Promise<void> {
    let view = this.compares.get(group);
    if (!view) {
      view = new CompareWindow({
        host: this.host,
        group,
        chrome: this.opts.chrome(),
        monoFont: this.host.settings.settings.terminal.fontFamily,
        review: (id) => void this.review(id),
        close: (id) => {
          const win = this.opts.windows.active ?? this.opts.windows.showWindow();
          win.window.activateWindow();
          this.closeSession(win, id);
        },
        log: (m, f) => this.opts.log.info(m, f),
      });
      this.compares.set(group, view);
    }
    await view.open();
  }

  /** A worktree session's changes: the compare view when it is a member of a fan-out, else its review. */
  private async reviewOrCompare(id: string): Promise<void> {
    const groups = this.host.registry.get(id)?.worktree ? await this.host.fanout('sessions.fanout.list', {}) : null;
    const group = groups?.ok ? groups.result.groups.find((g) => g.members.some((m) => m.sessionId === id)) : undefined;
    return group ? this.compare(group.id) : this.review(id);
  }

  /** Restyles the open review and compare views. */
  setChrome(c: ChromeColors): void {
    for (const v of [...this.reviews.values(), ...this.compares.values()]) v.setChrome(c);
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
        return this.opts.open('settings');
      case 'reviewChanges':
        if (id) await this.reviewOrCompare(id);
        return;
      case 'showUsage':
        return this.opts.open('usage');
      case 'searchHistory':
        return this.opts.open('history');
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
    const worktree = reg.get(id)?.worktree;
    if (worktree) {
      this.closeWorktreeSession(win, id, worktree.branch, started);
      return;
    }
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

  /** A worktree session asks whether its worktree stays; removing work at stake asks once more. */
  private closeWorktreeSession(win: MainWindow, id: string, branch: string, started: AppSessionRecord[]): void {
    const reg = this.host.registry;
    const prompt = worktreeClosePrompt(branch);
    win.quick.openList(
      prompt.title,
      prompt.items,
      (choice) => {
        for (const c of started) reg.close(c.id);
        void this.closeWithWorktree(win, id, choice === 'remove' ? 'remove' : 'keep', false);
      },
      prompt.hint,
    );
  }

  private async closeWithWorktree(win: MainWindow, id: string, worktree: 'keep' | 'remove', force: boolean): Promise<void> {
    const r = await this.host.review('sessions.close', { id, worktree, force: force ? true : undefined });
    this.opts.log.info('close worktree session', { id, worktree, force, ok: r.ok, message: r.ok ? (r.result.worktree ?? '') : r.message });
    this.reviews.get(id)?.close();
    this.reviews.delete(id);
    if (r.ok) {
      if (r.result.worktree) win.showMessage(r.result.worktree, 6_000);
      return;
    }
    if (r.code !== 'unsavedWork') {
      win.showMessage(r.message);
      return;
    }
    const again = worktreeForcePrompt(r.message);
    win.quick.openList(
      again.title,
      again.items,
      (choice) => void this.closeWithWorktree(win, id, choice === 'force' ? 'remove' : 'keep', choice === 'force'),
      again.hint,
    );
  }

  /** Every session in every window, filtered by name, folder or agent; Enter focuses it. */
  jumpToSession(win: MainWindow): void {
    win.quick.openList(jumpTitle, jumpItems(this.host.registry.list(), this.agentName, homedir()), (id) => this.opts.windows.focusSession(id));
  }
}
