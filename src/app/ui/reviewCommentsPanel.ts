// The review view's comments: the editor a comment on the selected diff lines is written in
// (Ctrl+Enter adds it, Esc cancels), and the pending list the host keeps (Return or Edit edits a
// comment, Delete or Remove removes it, Send to agent types them all into the session as one
// prompt once the agent is ready). Every change is a request to the host, whose answer is shown.
import { Key, KeyboardModifier, QKeyEvent, QLabel, QListWidget, QListWidgetItem, QPushButton, QTextEdit, QWidget, WidgetEventTypes } from '@nodegui/nodegui';
import type { ReviewComment } from '../../protocol/reviewComments';
import { commentPlace } from '../../protocol/reviewComments';
import type { ControlArgs } from '../../protocol/control';
import { actionText, commentRowText, commentsHeading } from '../present/reviewText';
import type { AppHost } from '../client/appHost';
import { boxWidget } from './boxWidget';

/** The comment editor: a few lines of text. */
const EDITOR_HEIGHT = 84;
/** The pending list: five rows before it scrolls. */
const LIST_HEIGHT = 132;
/** While comments wait for the agent, the list is asked for again this often. */
const SENDING_POLL_MS = 1_000;

export interface CommentTarget {
  file: string;
  line: number;
  to: number;
}

export interface ReviewCommentsOptions {
  host: AppHost;
  sessionId: string;
  /** Says how a request went, in the view's status line. */
  status: (text: string) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Called when the editor closes, to give the keyboard back to the diff. */
  done: () => void;
}

type CommentsAnswer = { ok: true; result: { comments: ReviewComment[]; sending: number } } | { ok: false; message: string };

export class ReviewCommentsPanel {
  /** Under the diff: where the comment goes, its text, Add and Cancel. */
  readonly editor: QWidget;
  /** Under the file list: the pending comments and what to do with them. */
  readonly pending: QWidget;
  private readonly place = new QLabel();
  private readonly text = new QTextEdit();
  private readonly heading = new QLabel();
  private readonly list = new QListWidget();
  private readonly send = new QPushButton();
  private comments: ReviewComment[] = [];
  private target: CommentTarget | null = null;
  /** What the list showed last (a change is logged). */
  private shown = { pending: 0, sending: 0 };
  /** The next look at comments on their way. */
  private polling: NodeJS.Timeout | null = null;
  /** The comment being edited (1-based), or null for a new one. */
  private editing: number | null = null;

  constructor(private readonly o: ReviewCommentsOptions) {
    this.editor = this.buildEditor();
    this.pending = this.buildPending();
    this.editor.hide();
  }

  private buildEditor(): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'reviewEditorBox', spacing: 6 });
    this.place.setObjectName('reviewEditorPlace');
    this.text.setObjectName('reviewEditor');
    this.text.setAcceptRichText(false);
    this.text.setTabChangesFocus(true);
    this.text.setFixedHeight(EDITOR_HEIGHT);
    this.text.setPlaceholderText('What should the agent change here?');
    this.text.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      const ctrl = (e.modifiers() & KeyboardModifier.ControlModifier) !== 0;
      if ((e.key() === Key.Key_Return || e.key() === Key.Key_Enter) && ctrl) void this.save();
      else if (e.key() === Key.Key_Escape) this.cancel();
      else return;
      this.text.setEventProcessed(true);
    });
    const { widget: buttons, layout: row } = boxWidget('row', { spacing: 8 });
    row.addStretch(1);
    row.addWidget(button('Cancel   Esc', 'reviewCancelComment', () => this.cancel()));
    row.addWidget(button('Add comment   Ctrl+Enter', 'reviewAddComment', () => void this.save()));
    layout.addWidget(this.place);
    layout.addWidget(this.text);
    layout.addWidget(buttons);
    return widget;
  }

  private buildPending(): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'reviewPendingBox', spacing: 6 });
    this.heading.setObjectName('reviewCommentsHeading');
    this.list.setObjectName('reviewComments');
    this.list.setFixedHeight(LIST_HEIGHT);
    this.list.addEventListener('itemActivated', () => this.edit());
    this.list.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const key = new QKeyEvent(native as never).key();
      if (key === Key.Key_Delete || key === Key.Key_Backspace) void this.remove();
    });
    const { widget: buttons, layout: row } = boxWidget('row', { spacing: 6 });
    row.addWidget(button('Edit', 'reviewEditComment', () => this.edit()));
    row.addWidget(button('Remove', 'reviewRemoveComment', () => void this.remove()));
    row.addStretch(1);
    this.send.setObjectName('reviewSend');
    this.send.setToolTip('Types the comments into the session as one prompt once the agent is ready (Ctrl+Shift+Enter)');
    this.send.addEventListener('clicked', () => void this.sendAll());
    row.addWidget(this.send);
    layout.addWidget(this.heading);
    layout.addWidget(this.list);
    layout.addWidget(buttons);
    this.show({ ok: true, result: { comments: [], sending: 0 } });
    return widget;
  }

  /** Opens the editor for a new comment on `t`. */
  write(t: CommentTarget): void {
    this.open(t, null, '');
  }

  private open(t: CommentTarget, editing: number | null, text: string): void {
    this.target = t;
    this.editing = editing;
    this.place.setText(`${editing === null ? 'Comment on' : `Comment ${editing} on`} ${commentPlace({ file: t.file, line: t.line, to: t.to })}`);
    this.text.setPlainText(text);
    this.editor.show();
    this.text.setFocus();
    this.o.log('review comment editor', { file: t.file, line: t.line, to: t.to });
  }

  private cancel(): void {
    this.editor.hide();
    this.target = null;
    this.o.done();
  }

  private async save(): Promise<void> {
    const t = this.target;
    const text = this.text.toPlainText().trim();
    if (!t) return;
    if (!text) return this.o.status('⚠ The comment has no text yet.');
    const args: ControlArgs<'sessions.comment'> = {
      id: this.o.sessionId,
      file: t.file,
      line: t.line,
      to: t.to,
      text,
      replace: this.editing ?? undefined,
    };
    const r = await this.o.host.review('sessions.comment', args);
    this.o.log('review comment added', { file: t.file, line: t.line, to: t.to, ok: r.ok, message: r.ok ? undefined : r.message });
    if (!this.show(r)) return;
    this.o.status(`✓ Comment on ${commentPlace({ file: t.file, line: t.line, to: t.to })} added: Send to agent when you are done.`);
    this.cancel();
  }

  private edit(): void {
    const i = this.list.currentRow();
    const c = this.comments[i];
    if (c) this.open({ file: c.file, line: c.line, to: c.to ?? c.line }, i + 1, c.text);
  }

  private async remove(): Promise<void> {
    const i = this.list.currentRow();
    if (!this.comments[i]) return;
    this.show(await this.o.host.review('sessions.comments.remove', { id: this.o.sessionId, index: i + 1 }));
  }

  /** Send to agent (the button, or Ctrl+Shift+Enter anywhere in the view). */
  async sendAll(): Promise<void> {
    const r = await this.o.host.review('sessions.comments.send', { id: this.o.sessionId });
    this.o.log('review comments sending', { ok: r.ok, ...(r.ok ? { comments: r.result.sending } : { message: r.message }) });
    if (!r.ok || !this.show(r)) return;
    const n = r.result.sending;
    this.o.status(`✓ ${n} comment${n === 1 ? '' : 's'} go${n === 1 ? 'es' : ''} to the agent as one prompt once it is ready for input.`);
  }

  /** Loads the host's list again. */
  async refresh(): Promise<void> {
    this.show(await this.o.host.review('sessions.comments', { id: this.o.sessionId }));
  }

  /** Shows the host's answer: the list, or why it refused (false). */
  private show(r: CommentsAnswer): boolean {
    if (!r.ok) {
      this.o.status(actionText(r));
      return false;
    }
    const row = this.list.currentRow();
    this.comments = r.result.comments;
    this.list.clear();
    for (const c of this.comments) {
      const item = new QListWidgetItem();
      item.setText(commentRowText(c));
      item.setToolTip(`${commentPlace(c)}\n${c.text}`);
      this.list.addItem(item);
    }
    if (this.comments.length > 0) this.list.setCurrentRow(Math.min(Math.max(row, 0), this.comments.length - 1));
    const counts = { pending: this.comments.length, sending: r.result.sending };
    if (counts.pending !== this.shown.pending || counts.sending !== this.shown.sending) this.o.log('review comments shown', counts);
    if (this.shown.sending > counts.sending && counts.sending === 0)
      this.o.status(
        counts.pending > this.shown.pending ? '⚠ The agent never got ready: the comments are back in the list.' : '✓ The comments were typed into the session.',
      );
    this.shown = counts;
    const words = commentsHeading(this.comments.length, r.result.sending);
    this.heading.setText(words.heading);
    this.send.setText(words.send);
    this.send.setEnabled(this.comments.length > 0);
    // Comments on their way are looked at again until the agent has them (or the view is closed).
    if (r.result.sending > 0 && !this.polling) {
      this.polling = setTimeout(() => {
        this.polling = null;
        if (this.pending.isVisible()) void this.refresh();
      }, SENDING_POLL_MS);
    }
    return true;
  }
}

/** A push button of the review view, named for its style sheet. */
export function button(text: string, name: string, act: () => void): QPushButton {
  const b = new QPushButton();
  b.setText(text);
  b.setObjectName(name);
  b.addEventListener('clicked', act);
  return b;
}
