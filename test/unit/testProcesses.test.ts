// The test helper that ends what a test started under its HOME: a detached daemon found by its
// environment is ended, and the socket it had bound goes with it (with the .lock Codex's daemon
// keeps beside it), even where it lives outside the HOME.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endProcessesWithHome, isAlive, processesWithHome } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';

describe('endProcessesWithHome', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('ends a detached daemon with that HOME and removes the socket it bound, and its lock', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-home-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'termio-daemon-'));
    dirs.push(home, elsewhere);
    const socket = join(elsewhere, 'd.sock');
    writeFileSync(`${socket}.lock`, '');
    const listen = `require('net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`;
    const daemon = spawn(process.execPath, ['-e', listen], { env: { ...process.env, HOME: home }, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    daemon.unref();
    await new Promise<void>((resolve) => daemon.stdout!.once('data', () => resolve()));
    expect(existsSync(socket)).toBe(true);
    expect(processesWithHome(home)).toEqual([daemon.pid]);

    await endProcessesWithHome(home);

    await waitFor(() => !isAlive(daemon.pid!), { what: 'the daemon to end' });
    expect(processesWithHome(home)).toEqual([]);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(`${socket}.lock`)).toBe(false);
  });
});
