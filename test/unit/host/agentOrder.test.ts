// The picker order the user sets in Settings: a real headless Host in a temporary HOME.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import { nullLogger } from '../../../src/app/services/log';

describe('agent order from Settings', () => {
  let home: string;
  let host: Host | undefined;
  afterEach(async () => {
    await host?.dispose();
    rmSync(home, { recursive: true, force: true });
  });

  it('moves an agent in the picker order, saved in settings.json, surviving a restart', async () => {
    home = mkdtempSync(join(tmpdir(), 'termio-order-'));
    const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio') };
    const start = async () => {
      const r = await Host.start({ env, logger: nullLogger, path: '', notificationSink: { send: async () => undefined } });
      if (!r.ok) throw new Error(r.message);
      return r.host;
    };
    host = await start();
    const before = host.agents.ordered().map((e) => e.id);
    expect(before.slice(0, 2)).toEqual(['claude', 'codex']);
    // What the app's moveAgent does: the new order, written by the host's store (settings.set).
    host.settings.set(['agents'], host.agents.moved('codex', -1));
    expect(
      host.agents
        .ordered()
        .map((e) => e.id)
        .slice(0, 2),
    ).toEqual(['codex', 'claude']);
    expect(host.agents.moved('codex', -1)).toBeNull(); // already first: nothing to do
    expect(
      host.agents
        .ordered()
        .map((e) => e.id)
        .slice(0, 2),
    ).toEqual(['codex', 'claude']);
    const saved = JSON.parse(readFileSync(join(home, '.termio', 'config', 'settings.json'), 'utf8'));
    expect(saved.agents.codex.order).toBe(0);
    expect(saved.agents.claude.order).toBe(1);
    await host.dispose();
    host = await start();
    expect(
      host.agents
        .ordered()
        .map((e) => e.id)
        .slice(0, 2),
    ).toEqual(['codex', 'claude']);
    expect(host.agents.enabled().map((e) => e.id)).toEqual(host.agents.ordered().map((e) => e.id));
  });
});
