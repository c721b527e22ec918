// What ssh asks while the host connects a saved machine — a key's passphrase, a one-time code —
// shown as a small window of its own: non-modal (a modal dialog would stall Node's loop under the
// Linux runtime, and with it every session), the answer typed hidden, sent once to the host and
// forgotten (the field is cleared). One window per question; it closes when the question is over
// (answered here or cancelled, timed out, or its ssh went away).
import { EchoMode, QBoxLayout, QLabel, QLineEdit, QPushButton, QWidget, Direction, WidgetEventTypes } from '@nodegui/nodegui';
import type { Disposable } from '../../protocol/events';
import type { AppHost } from '../client/appHost';

interface Open {
  win: QWidget;
  sent: boolean;
}

export class AskpassPrompts implements Disposable {
  private readonly open = new Map<string, Open>();
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly host: Pick<AppHost, 'onAskpass' | 'onAskpassDone' | 'answerAsk'>,
    private readonly log: (msg: string, fields?: Record<string, unknown>) => void,
  ) {
    this.subscriptions = [host.onAskpass((a) => this.show(a.id, a.machine, a.prompt)), host.onAskpassDone((id) => this.close(id))];
  }

  /** The questions on screen now (tests read them through the log). */
  get count(): number {
    return this.open.size;
  }

  private show(id: string, machine: string, prompt: string): void {
    if (this.open.has(id)) return;
    const win = new QWidget();
    win.setObjectName('askpass');
    win.setWindowTitle(`Termio — ${machine}`);
    const layout = new QBoxLayout(Direction.TopToBottom);
    win.setLayout(layout);
    const label = new QLabel();
    label.setWordWrap(true);
    label.setText(`Connecting to ${machine}, ssh asks:\n${prompt.trim() || 'a passphrase'}`);
    const field = new QLineEdit();
    field.setObjectName('askpassAnswer');
    field.setEchoMode(EchoMode.Password);
    const ok = new QPushButton();
    ok.setText('Send');
    const cancel = new QPushButton();
    cancel.setText('Cancel');
    const buttons = new QWidget();
    const row = new QBoxLayout(Direction.LeftToRight);
    buttons.setLayout(row);
    row.addStretch(1);
    row.addWidget(cancel);
    row.addWidget(ok);
    layout.addWidget(label);
    layout.addWidget(field);
    layout.addWidget(buttons);
    const entry: Open = { win, sent: false };
    this.open.set(id, entry);
    const send = (answer: string | null, closing = false): void => {
      if (entry.sent) return;
      entry.sent = true;
      // Held only on its way to the host.
      field.clear();
      void this.host.answerAsk(id, answer).then((taken) => this.log('askpass answered', { machine, taken, cancelled: answer === null }));
      if (closing) this.open.delete(id);
      else this.close(id);
    };
    ok.addEventListener('clicked', () => send(field.text()));
    field.addEventListener('returnPressed', () => send(field.text()));
    cancel.addEventListener('clicked', () => send(null));
    win.addEventListener(WidgetEventTypes.Close, () => send(null, true));
    win.resize(420, 150);
    win.show();
    win.raise();
    win.activateWindow();
    field.setFocus();
    this.log('askpass shown', { machine });
  }

  private close(id: string): void {
    const o = this.open.get(id);
    if (!o) return;
    this.open.delete(id);
    o.sent = true;
    o.win.close();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const id of [...this.open.keys()]) this.close(id);
  }
}
