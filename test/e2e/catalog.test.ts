// User manifests live: with the app running and the picker open, a new manifest in
// ~/.termio/config/agents appears in the open picker; breaking it shows the error and keeps the last
// good version; deleting it removes the agent.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, useDesktop } from './harness';

const newSessionKeys = process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t';

describe.skipIf(e2eSkipReason)('user agent manifests, live', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  /** The newest 'picker agents' log line's names. */
  function pickerNames(a: AppUnderTest): string[] | null {
    const lines = a
      .log()
      .split('\n')
      .filter((l) => l.includes('INFO picker agents'));
    const last = lines.at(-1);
    return last ? (JSON.parse(last.slice(last.indexOf('{'))) as { names: string[] }).names : null;
  }

  it('adds, keeps the last good version of, and removes a user agent without a restart', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    const dir = join(app.termioHome, 'config', 'agents');
    mkdirSync(dir, { recursive: true });
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', newSessionKeys);
    await app.waitForLog(/picker opened/);

    const file = join(dir, 'mybot.json');
    // The open picker lists it (the line is logged only while the picker is open).
    writeFileSync(file, JSON.stringify({ id: 'mybot', name: 'My Bot', command: 'sh', order: 1 }));
    await waitFor(() => pickerNames(app!)?.includes('My Bot'), { what: 'My Bot in the picker' });
    app.screenshot('catalog-added');

    writeFileSync(file, '{ "id": "mybot", "name": "My Bot", "command": ');
    await app.waitForLog(/catalog changed .*mybot\.json: .*keptLastGood|catalog changed .*"problems":\["[^"]*mybot\.json/);
    const last = app
      .log()
      .split('\n')
      .filter((l) => l.includes('catalog changed'))
      .at(-1)!;
    expect(last).toContain('"mybot"'); // still loaded: the last good version
    app.screenshot('catalog-broken');

    rmSync(file);
    await waitFor(() => !(pickerNames(app!) ?? ['My Bot']).includes('My Bot'), { timeout: 5_000, what: 'My Bot to leave the picker' });
  });
});
