// Settings → Machines: the saved machines with their live state (connected, or what is wrong and
// when the next try is), Remove for each, and a form to add one (name, [user@]host, port,
// identity file). Everything is asked of the session host, which keeps machines.json and the
// connections; state changes repaint the rows in place, so typing in the form is never lost.
import { QLabel, QLineEdit, QPushButton, QWidget } from '@nodegui/nodegui';
import type { MachineInfo } from '../../protocol/machines';
import { machineStateLine, machineTarget } from '../present/machineText';
import { boxWidget, label } from './boxWidget';

export interface MachinesModel {
  list(): MachineInfo[];
  /** Saves a machine; resolves with an error line, or null when saved. */
  add(m: { name: string; target: string; port?: number; identity?: string }): Promise<string | null>;
  remove(name: string): Promise<string | null>;
}

const INTRO =
  "Other computers you reach with ssh: their sessions show in the sidebar beside this one's. " +
  'Your ~/.ssh/config, ssh-agent and known hosts apply. Each machine needs Termio too (termio machines install NAME).';

export class MachinesPage {
  private states = new Map<string, QLabel>();
  private shownNames = '';
  private error: QLabel | null = null;

  constructor(
    private readonly model: MachinesModel,
    private readonly rebuild: () => void,
  ) {}

  /** A fresh page widget (Settings rebuilds its pages). */
  build(): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'settingsPage', margins: [18, 14, 18, 14], spacing: 10 });
    layout.addWidget(label(INTRO, 'settingsMuted'));
    const now = Date.now();
    this.states = new Map();
    const machines = this.model.list();
    this.shownNames = machines.map((m) => m.name).join('\n');
    if (machines.length === 0) layout.addWidget(label('No machines yet.', 'settingsText'));
    for (const m of machines) {
      const { widget: rowW, layout: row } = boxWidget('column', { spacing: 2 });
      const { widget: head, layout: h } = boxWidget('row', { spacing: 10 });
      const title = label(`${m.name}   ${machineTarget(m)}`, 'settingsHeading');
      title.setWordWrap(false);
      h.addWidget(title);
      h.addStretch(1);
      const remove = new QPushButton();
      remove.setText('Remove');
      remove.addEventListener('clicked', () => void this.model.remove(m.name).then((e) => this.done(e)));
      h.addWidget(remove);
      row.addWidget(head);
      const state = label(machineStateLine(m, now), 'settingsMuted');
      state.setWordWrap(true);
      this.states.set(m.name, state);
      row.addWidget(state);
      layout.addWidget(rowW);
    }
    layout.addWidget(label('Add a machine', 'settingsHeading'));
    const fields = { name: new QLineEdit(), target: new QLineEdit(), port: new QLineEdit(), identity: new QLineEdit() };
    fields.name.setPlaceholderText('name (gpu)');
    fields.target.setPlaceholderText('[user@]host or an ssh alias');
    fields.port.setPlaceholderText('port');
    fields.identity.setPlaceholderText('identity file (optional)');
    const { widget: form, layout: f } = boxWidget('row', { spacing: 8 });
    for (const x of [fields.name, fields.target, fields.port, fields.identity]) f.addWidget(x);
    const add = new QPushButton();
    add.setText('Add');
    add.addEventListener('clicked', () => {
      const port = fields.port.text().trim();
      if (port && !/^\d+$/.test(port)) return this.done(`the port must be a number, got '${port}'`);
      void this.model
        .add({
          name: fields.name.text().trim(),
          target: fields.target.text().trim(),
          port: port ? Number(port) : undefined,
          identity: fields.identity.text().trim() || undefined,
        })
        .then((e) => this.done(e));
    });
    f.addWidget(add);
    layout.addWidget(form);
    this.error = label('', 'settingsError');
    this.error.setWordWrap(true);
    layout.addWidget(this.error);
    layout.addStretch(1);
    return widget;
  }

  private done(error: string | null): void {
    if (error) this.error?.setText(error);
    else this.rebuild();
  }

  /** The host said a machine changed: its row repaints, or the page is rebuilt when one came or went. */
  changed(machines: MachineInfo[]): void {
    if (machines.map((m) => m.name).join('\n') !== this.shownNames) {
      this.rebuild();
      return;
    }
    const now = Date.now();
    for (const m of machines) this.states.get(m.name)?.setText(machineStateLine(m, now));
  }
}
