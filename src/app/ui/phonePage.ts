// Settings → Phone: the companion's state, its pairing link as a QR code and as text (selectable,
// to paste into a browser), turn on/off, "reachable on my network", and Revoke; and the phones
// notified by Web Push, each with a Remove button. The page asks the session host (PhoneModel)
// and repaints in place when the answer comes.
import { QBoxLayout, QCheckBox, QLabel, QPixmap, QPushButton, QWidget, TextInteractionFlag } from '@nodegui/nodegui';
import { boxWidget } from './boxWidget';
import type { DevicesResult, PhoneModel, PhoneResult } from './phoneModel';
import { label } from './boxWidget';
import { PHONE_INTRO, deviceLine, devicesHeading, phoneView, type PhoneView } from './presenters/phoneText';

/** Pixels per QR module: a 33-module code (a ~70-character link) is about 200 px, easy to scan
 *  from a laptop screen. */
const QR_SCALE = 6;

interface Widgets {
  headline: QLabel;
  qr: QLabel;
  url: QLabel;
  note: QLabel;
  error: QLabel;
  toggle: QPushButton;
  lan: QCheckBox;
  revoke: QPushButton;
  devicesHeading: QLabel;
  /** Where the devices' rows go (replaced on each answer), and the rows shown. */
  slot: QBoxLayout;
  devices: QWidget | null;
}

export class PhonePage {
  private view: PhoneView = { ...phoneView(null, null), headline: 'Asking the session host…' };
  private w: Widgets | null = null;
  private busy = false;

  constructor(private readonly model: PhoneModel) {}

  /** A fresh page widget (Settings rebuilds its pages); asks the host for the latest status. */
  build(): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'settingsPage', margins: [18, 14, 18, 14], spacing: 10 });
    const slot = boxWidget('column');
    const w: Widgets = {
      headline: label('', 'settingsHeading'),
      qr: new QLabel(),
      url: label('', 'settingsText'),
      note: label('', 'settingsMuted'),
      error: label('', 'settingsError'),
      toggle: new QPushButton(),
      lan: new QCheckBox(),
      revoke: new QPushButton(),
      devicesHeading: label('', 'settingsText'),
      slot: slot.layout,
      devices: null,
    };
    w.url.setTextInteractionFlags(TextInteractionFlag.TextSelectableByMouse);
    w.toggle.addEventListener('clicked', () => this.act(() => (this.view.toggle.text === 'Turn off' ? this.model.disable() : this.model.enable())));
    w.lan.addEventListener('clicked', (checked) => this.act(() => this.model.enable(checked ? 'lan' : 'loopback')));
    w.revoke.addEventListener('clicked', () => this.act(() => this.model.revoke()));
    const { widget: buttons, layout: row } = boxWidget('row', { spacing: 10 });
    for (const b of [w.toggle, w.lan, w.revoke]) row.addWidget(b);
    row.addStretch(1);
    layout.addWidget(label(PHONE_INTRO, 'settingsMuted'));
    for (const x of [w.headline, buttons, w.error, w.qr, w.url, w.note, w.devicesHeading, slot.widget]) layout.addWidget(x);
    layout.addStretch(1);
    this.w = w;
    this.fill();
    this.act(() => this.model.status());
    return widget;
  }

  /** The phones notified, one row each with its Remove button (Alt+M removes the first). */
  private fillDevices(w: Widgets, r: DevicesResult): void {
    if (this.w !== w) return;
    w.devicesHeading.setText(devicesHeading(r.ok ? r.devices : null, r.ok ? null : r.message));
    if (w.devices) {
      w.slot.removeWidget(w.devices);
      w.devices.close();
    }
    const { widget: rows, layout } = boxWidget('column', { spacing: 6 });
    for (const [i, d] of (r.ok ? r.devices : []).entries()) {
      const { widget: row, layout: line } = boxWidget('row', { spacing: 10 });
      const remove = new QPushButton();
      remove.setText(i === 0 ? 'Re&move' : 'Remove');
      remove.addEventListener('clicked', () => void this.model.removeDevice(d.id).then((after) => this.fillDevices(w, after)));
      line.addWidget(label(deviceLine(d), 'settingsText'), 1);
      line.addWidget(remove);
      layout.addWidget(row);
    }
    w.slot.addWidget(rows);
    w.devices = rows;
  }

  private act(ask: () => Promise<PhoneResult>): void {
    if (this.busy) return;
    this.busy = true;
    void ask().then((r) => {
      this.busy = false;
      this.view = r.ok ? phoneView(r.status, null) : phoneView(null, r.message);
      // Into the page's current widgets (Settings may have rebuilt it while the host answered).
      this.fill();
      // The devices too: a revoke drops them all.
      const w = this.w;
      if (w) void this.model.devices().then((d) => this.fillDevices(w, d));
    });
  }

  private fill(): void {
    const w = this.w;
    const v = this.view;
    if (!w) return;
    w.headline.setText(v.headline);
    w.toggle.setText(v.toggle.text);
    w.toggle.setEnabled(v.toggle.enabled);
    w.lan.setText(v.lan.text);
    w.lan.setChecked(v.lan.checked);
    w.lan.setEnabled(v.lan.enabled);
    w.revoke.setText(v.revoke.text);
    w.revoke.setEnabled(v.revoke.enabled);
    w.error.setText(v.error ?? '');
    w.error.setVisible(v.error !== null);
    w.url.setText(v.url ?? '');
    w.note.setText(v.note);
    for (const x of [w.url, w.note, w.qr]) x.setVisible(v.url !== null);
    if (v.url) {
      // Loaded on first use: the QR encoder and its PNG writer are ~6 MB the app need not hold
      // until the Phone pane shows a link.
      const { toBuffer: qrPng } = require('qrcode') as typeof import('qrcode');
      void qrPng(v.url, { type: 'png', scale: QR_SCALE, margin: 2 }).then((png) => {
        // Drawn only into widgets still shown: Settings may have rebuilt the page meanwhile.
        if (this.w !== w) return;
        const pm = new QPixmap();
        pm.loadFromData(png, 'PNG');
        w.qr.setPixmap(pm);
      });
    }
  }
}
