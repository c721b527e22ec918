// The review view of a worktree session: what its branch changed against its base (the files on
// the left, the selected file's unified diff on the right, new files included), comments on lines
// of the diff sent back to the agent (select lines, press C or Ctrl+Enter, write; the pending
// list under the files; Send to agent), and the actions that land the work: commit everything
// (with the proposed message), merge into the base, rebase on it, open the folder in an editor,
// copy a `gh pr create` line. A window of its own, shown with show() (the Linux runtime runs no
// nested event loop); every answer comes from the host.
import {
  Key,
  KeyboardModifier,
  QApplication,
  QBrush,
  QClipboardMode,
  QColor,
  QKeyEvent,
  QKeySequence,
  QLabel,
  QLineEdit,
  QListWidget,
  QListWidgetItem,
  QMainWindow,
  QShortcut,
  QWidget,
  SelectionMode,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import type { ChangedFileInfo, ControlResult } from '../../protocol/control';
import { diffRows, type DiffRow } from '../../protocol/reviewComments';
import { boxWidget } from './boxWidget';
import { reviewStyleSheet, type ChromeColors } from './chromeStyle';
import { openFolderInEditor } from './openExternal';
import { button, ReviewCommentsPanel } from './reviewCommentsPanel';
import { actionText, darkDiff, diffRowColors, fileRowText, lightDiff, reviewHeading } from '../present/reviewText';
import type { AppHost } from '../client/appHost';

/** Wide enough for the file list and 100 columns of diff at 12 px. */
const WINDOW_SIZE: [number, number] = [1180, 760];
/** The file list: long paths elide, the diff gets the rest. */
const FILE_LIST_WIDTH = 340;

type Diff = ControlResult<'worktrees.diff'>;

export interface ReviewWindowOptions {
  host: AppHost;
  sessionId: string;
  chrome: ChromeColors;
  monoFont: string;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export class ReviewWindow {
  readonly window = new QMainWindow();
  private readonly title = new QLabel();
  private readonly detail = new QLabel();
  private readonly files = new QListWidget();
  private readonly diff = new QListWidget();
  /** The rows the diff shows, one per list row. */
  private rows: DiffRow[] = [];
  private readonly comments: ReviewCommentsPanel;
  private readonly sendKey = new QShortcut(this.window);
  private readonly message = new QLineEdit();
  private readonly status = new QLabel();
  private readonly gh = button('Copy gh pr create', 'reviewGh', () => this.copyGh());
  private current: Diff | null = null;
  private chrome: ChromeColors;
  private selected: string | null = null;

  constructor(private readonly o: ReviewWindowOptions) {
    this.chrome = o.chrome;
    this.window.setObjectName('review');
    this.window.setWindowTitle('Review changes');
    this.window.resize(...WINDOW_SIZE);
    const { widget: root, layout } = boxWidget('column', { name: 'reviewRoot', margins: [16, 12, 16, 12], spacing: 8 });
    this.title.setObjectName('reviewTitle');
    this.detail.setObjectName('reviewDetail');
    layout.addWidget(this.title);
    layout.addWidget(this.detail);
    this.comments = new ReviewCommentsPanel({
      host: o.host,
      sessionId: o.sessionId,
      status: (text) => this.status.setText(text),
      log: o.log,
      done: () => this.diff.setFocus(),
    });
    const { widget: body, layout: row } = boxWidget('row', { spacing: 10 });
    row.addWidget(this.leftColumn());
    row.addWidget(this.rightColumn(), 1);
    layout.addWidget(body, 1);
    layout.addWidget(this.actions());
    this.status.setObjectName('reviewStatus');
    this.status.setWordWrap(true);
    layout.addWidget(this.status);
    this.window.setCentralWidget(root);
    this.sendKey.setKey(new QKeySequence('Ctrl+Shift+Return'));
    this.sendKey.addEventListener('activated', () => void this.comments.sendAll());
    this.setChrome(o.chrome);
  }

  /** The changed files, and under them the pending comments. */
  private leftColumn(): QWidget {
    const { widget, layout } = boxWidget('column', { spacing: 8 });
    widget.setFixedWidth(FILE_LIST_WIDTH);
    this.files.setObjectName('reviewFiles');
    this.files.addEventListener('currentRowChanged', (i) => void this.showFile(this.current?.files[i]?.path ?? null));
    // Return (or a double-click) on a file goes to its diff, to select lines to comment on.
    this.files.addEventListener('itemActivated', () => this.diff.setFocus());
    layout.addWidget(this.files, 1);
    layout.addWidget(this.comments.pending);
    return widget;
  }

  /** The diff, whose lines are selected for a comment, and the comment editor under it. */
  private rightColumn(): QWidget {
    const { widget, layout } = boxWidget('column', { spacing: 8 });
    this.diff.setObjectName('reviewDiff');
    this.diff.setSelectionMode(SelectionMode.ContiguousSelection);
    this.diff.addEventListener('itemDoubleClicked', () => this.commentOnSelection());
    this.diff.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      const ctrl = (e.modifiers() & KeyboardModifier.ControlModifier) !== 0;
      const enter = e.key() === Key.Key_Return || e.key() === Key.Key_Enter;
      if ((e.key() === Key.Key_C && !ctrl) || (enter && ctrl)) {
        this.commentOnSelection();
        this.diff.setEventProcessed(true);
      }
    });
    layout.addWidget(this.diff, 1);
    layout.addWidget(this.comments.editor);
    return widget;
  }

  /** Opens the comment editor on the selected lines of the diff. */
  private commentOnSelection(): void {
    const lines = this.diff
      .selectedItems()
      .map((item) => this.rows[this.diff.row(item)]?.line ?? null)
      .filter((n): n is number => n !== null);
    if (this.selected === null || lines.length === 0) {
      this.status.setText('Select lines of the diff (not a hunk header) to comment on, then press C.');
      return;
    }
    this.comments.write({ file: this.selected, line: Math.min(...lines), to: Math.max(...lines) });
  }

  private actions(): QWidget {
    const { widget, layout } = boxWidget('row', { spacing: 8 });
    this.message.setObjectName('reviewMessage');
    this.message.setPlaceholderText('Commit message');
    layout.addWidget(this.message, 1);
    layout.addWidget(button('Commit all', 'reviewCommit', () => void this.act('commit')));
    layout.addWidget(button('Merge into base', 'reviewMerge', () => void this.act('merge')));
    layout.addWidget(button('Rebase on base', 'reviewRebase', () => void this.act('rebase')));
    layout.addWidget(button('Open folder', 'reviewOpen', () => this.openFolder()));
    layout.addWidget(this.gh);
    layout.addWidget(button('Refresh', 'reviewRefresh', () => void this.refresh()));
    return widget;
  }

  setChrome(c: ChromeColors): void {
    this.chrome = c;
    this.window.setStyleSheet(`${reviewStyleSheet(c)}\n#reviewDiff { font-family: '${this.o.monoFont}'; font-size: 12px; }`);
    if (this.current) this.paintDiff(this.rows);
  }

  /** Shows the window and loads the changes. */
  async open(): Promise<void> {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
    await this.refresh();
  }

  /** Loads the file list again (keeping the selected file when it is still changed). */
  async refresh(): Promise<void> {
    const r = await this.o.host.review('worktrees.diff', { ref: this.o.sessionId, stat: true });
    if (!r.ok) {
      this.status.setText(actionText(r));
      return;
    }
    this.current = r.result;
    const head = reviewHeading(r.result.worktree, r.result.files);
    this.title.setText(head.title);
    this.detail.setText(head.detail);
    if (!this.message.text()) this.message.setText(r.result.proposedMessage);
    this.gh.setVisible(r.result.ghCommand !== null);
    this.files.clear();
    for (const f of r.result.files) {
      const item = new QListWidgetItem();
      item.setText(fileRowText(f));
      item.setToolTip(f.path);
      this.files.addItem(item);
    }
    const keep = r.result.files.findIndex((f: ChangedFileInfo) => f.path === this.selected);
    if (r.result.files.length > 0) this.files.setCurrentRow(keep >= 0 ? keep : 0);
    else void this.showFile(null);
    await this.comments.refresh();
    this.o.log('review loaded', { session: this.o.sessionId, files: r.result.files.length });
  }

  private async showFile(path: string | null): Promise<void> {
    this.selected = path;
    const r = path === null ? null : await this.o.host.review('worktrees.diff', { ref: this.o.sessionId, file: path });
    if (this.selected !== path) return;
    if (r && !r.ok) this.status.setText(actionText(r));
    this.paintDiff(r?.ok ? diffRows(r.result.text) : []);
    this.o.log('review diff shown', { file: path, rows: this.rows.length });
  }

  /** One list row per diff row, coloured for the appearance. */
  private paintDiff(rows: DiffRow[]): void {
    const colors = this.chrome.appearance === 'light' ? lightDiff : darkDiff;
    this.rows = rows;
    this.diff.clear();
    const shown = rows.length > 0 ? rows : [{ text: 'No differences.', kind: 'note' as const, line: null }];
    for (const row of shown) {
      const item = new QListWidgetItem();
      item.setText(row.text || ' ');
      const c = diffRowColors(row.kind, colors);
      if (c.background) item.setBackground(new QBrush(new QColor(c.background)));
      item.setForeground(new QBrush(new QColor(c.text)));
      this.diff.addItem(item);
    }
  }

  private async act(action: 'commit' | 'merge' | 'rebase'): Promise<void> {
    const message = this.message.text().trim();
    this.status.setText(`${action === 'commit' ? 'Committing' : action === 'merge' ? 'Merging' : 'Rebasing'}…`);
    const r = await this.o.host.review('worktrees.act', { ref: this.o.sessionId, action, message: action === 'commit' && message ? message : undefined });
    this.status.setText(actionText(r.ok ? { ok: true, message: r.result.message } : r));
    this.o.log('review action', { session: this.o.sessionId, action, ok: r.ok, message: r.ok ? r.result.message : r.message });
    await this.refresh();
  }

  private openFolder(): void {
    const path = this.current?.worktree.path;
    if (!path) return;
    const how = openFolderInEditor(path, process.env.PATH ?? '');
    this.status.setText(how ? `Opened ${path} with ${how}` : `⚠ could not open ${path}`);
  }

  private copyGh(): void {
    const line = this.current?.ghCommand;
    if (!line) return;
    QApplication.clipboard()?.setText(line, QClipboardMode.Clipboard);
    this.status.setText(`Copied: ${line}`);
  }

  close(): void {
    this.window.close();
  }
}
