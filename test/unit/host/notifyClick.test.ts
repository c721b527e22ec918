// `termio notify` through the real host: the notification goes to the OS sink with the calling
// session, and a click on it (which the sink reports where the OS does) asks to focus that session.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import type { NotificationRequest } from '../../../src/app/services/notifier';
import { termio } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';

let host: Host | null = null;
let home = '';
afterEach(async () => {
  await host?.dispose();
  host = null;
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('termio notify in the host', () => {
  it('hands the notification to the OS with its session, and a click focuses that session', async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-notify-')));
    const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio') };
    const sent: Array<{ req: NotificationRequest; click: () => void }> = [];
    const clicked: Array<string | null> = [];
    const nullLog = { debug() {}, info() {}, warn() {}, error() {} };
    const started = await Host.start({
      env,
      logger: nullLog,
      path: process.env.PATH ?? '',
      notificationSink: { send: async (req, _sound, click) => void sent.push({ req, click }) },
      onNotificationClick: (id) => clicked.push(id),
    });
    if (!started.ok) throw new Error(started.message);
    host = started.host;
    const spawned = await host.registry.spawn({ cwd: home });
    if (!spawned.ok) throw new Error(spawned.message);
    const id = spawned.record.id;

    const r = await termio(['notify', 'tests pass'], { ...env, TERMIO_SESSION: id });
    expect(r).toMatchObject({ status: 0, stderr: '' });
    const n = await waitFor(() => sent[0], { what: 'the notification' });
    expect(n.req).toMatchObject({ sessionId: id, message: 'tests pass', title: `Terminal · ${basename(home)}` });
    n.click();
    expect(clicked).toEqual([id]);
  });
});
