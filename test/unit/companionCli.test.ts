// `termio companion` against the real termio-host (started on first need by the command, as a
// user would): status with no host, enable on a chosen port, the pairing URL, revoke, disable,
// and bad usage; settings.json keeps what was chosen.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { repoRoot } from '../helpers/companionHost';
import { freePort } from '../helpers/ports';

let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'tcompcli-')));
  env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), TERMIO_HOST_IDLE_MS: '0' };
});

afterEach(async () => {
  await termio(['host', 'stop']);
  rmSync(home, { recursive: true, force: true });
});

function termio(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'termio'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

it('enables, prints the link, revokes it, and disables', async () => {
  expect(await termio(['companion', 'status'])).toMatchObject({ code: 4, err: expect.stringContaining('no Termio host is running') });
  const none = await termio(['companion', 'status', '--json']);
  expect(none.code).toBe(4);
  expect(JSON.parse(none.out)).toMatchObject({
    schemaVersion: 1,
    ok: false,
    code: 'hostNotRunning',
    message: expect.stringContaining('no Termio host is running'),
  });
  const port = await freePort();
  const on = await termio(['companion', 'enable', '--port', String(port)]);
  expect(on.code, on.err).toBe(0);
  const token = () => readFileSync(join(home, '.termio', 'companion-token'), 'utf8').trim();
  expect(on.out).toContain(`companion: on, reachable from this computer only, port ${port}`);
  expect(on.out).toContain(`http://127.0.0.1:${port}/#t=${token()}`);
  expect(JSON.parse(readFileSync(join(home, '.termio', 'config', 'settings.json'), 'utf8'))).toEqual({ companion: { enabled: true, port } });
  const url = await termio(['companion', 'url']);
  expect(url.out).toBe(`http://127.0.0.1:${port}/#t=${token()}\n`);
  const before = token();
  const revoked = await termio(['companion', 'revoke']);
  expect(revoked.code).toBe(0);
  expect(token()).not.toBe(before);
  expect(revoked.out).toContain(token());
  const json = JSON.parse((await termio(['companion', 'status', '--json'])).out) as Record<string, unknown>;
  expect(json).toMatchObject({ schemaVersion: 1, ok: true, enabled: true, listening: true, port, network: 'loopback', pages: 0 });
  const off = await termio(['companion', 'disable']);
  expect(off.out).toBe('companion: off (termio companion enable turns it on)\n');
  expect(await termio(['companion', 'url'])).toMatchObject({ code: 1, err: expect.stringContaining('the companion is off') });
});

it('says what is wrong with bad usage', async () => {
  expect(await termio(['companion', 'enable', '--port', '80'])).toMatchObject({
    code: 2,
    err: expect.stringContaining('--port: expected a whole number from 1024 to 65535'),
  });
  expect(await termio(['companion', 'open'])).toMatchObject({ code: 2, err: expect.stringContaining("unknown verb 'open'") });
  expect(await termio(['companion', 'url', '--lan'])).toMatchObject({ code: 2, err: expect.stringContaining("unexpected argument '--lan'") });
});

it('reports a port in use instead of serving', async () => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)));
  try {
    const on = await termio(['companion', 'enable', '--port', String(port)]);
    expect(on.code).toBe(1);
    expect(on.out).toContain(`not serving: port ${port} is in use by another program; pick another port`);
    // With --json the same failure is an error object (ok false, the exit code's word), status kept.
    const status = await termio(['companion', 'status', '--json']);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.out)).toMatchObject({
      ok: false,
      code: 'notServing',
      message: expect.stringContaining(`port ${port} is in use by another program`),
      enabled: true,
      listening: false,
      port,
    });
  } finally {
    blocker.close();
  }
});

it('never makes a corrupt settings.json worse: a truncated one is moved aside unchanged and said so; a value in the way is named', async () => {
  const dir = join(home, '.termio', 'config');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'settings.json');
  const truncated = '{\n  "terminal": { "fontSize": 14 },\n  "comp';
  writeFileSync(file, truncated);
  const port = await freePort();
  const on = await termio(['companion', 'enable', '--port', String(port)]);
  expect(on.code, on.err).toBe(0);
  expect(on.err).toMatch(
    /settings\.json could not be read \(line 3: [A-Za-z]+\); it was moved to ~\/\.termio\/config\/settings\.json\.corrupt-[\w-]+ unchanged/,
  );
  expect(on.out).toContain(`companion: on, reachable from this computer only, port ${port}`);
  const aside = readdirSync(dir).filter((n) => n.startsWith('settings.json.corrupt-'));
  expect(aside).toHaveLength(1);
  expect(readFileSync(join(dir, aside[0]!), 'utf8')).toBe(truncated);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ companion: { enabled: true, port } });
  // A wrong type in the way: refused with its name, the file untouched.
  const wrong = JSON.stringify({ terminal: { fontSize: 14 }, companion: 'yes' });
  writeFileSync(file, wrong);
  const refused = await termio(['companion', 'enable', '--port', String(port)]);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('companion is "yes", not an object, so companion.enabled cannot be set; fix or remove it and try again (nothing was changed)');
  expect(readFileSync(file, 'utf8')).toBe(wrong);
});

it('lists the devices registered for push, removes one, and says what is wrong otherwise', async () => {
  const port = await freePort();
  expect((await termio(['companion', 'enable', '--port', String(port)])).code).toBe(0);
  expect((await termio(['companion', 'devices'])).out).toBe('no devices: open the page on a phone and tap "Notify this phone"\n');
  const token = readFileSync(join(home, '.termio', 'companion-token'), 'utf8').trim();
  const r = await fetch(`http://127.0.0.1:${port}/api/push/subscriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      device: 'cli-phone-1',
      name: 'iPhone · Safari',
      subscription: { endpoint: 'https://web.push.apple.com/QGx', keys: { p256dh: 'BNcR', auth: 'tBHI' } },
    }),
  });
  expect(r.status).toBe(200);
  const listed = await termio(['companion', 'devices']);
  expect(listed.out).toMatch(/^cli-phone-1 {2}iPhone · Safari {2}since \d{4}-\d\d-\d\d \d\d:\d\d {2}via web\.push\.apple\.com {2}nothing pushed yet\n$/);
  const json = JSON.parse((await termio(['companion', 'devices', '--json'])).out) as { ok: boolean; devices: Array<Record<string, unknown>> };
  expect(json.devices).toMatchObject([{ id: 'cli-phone-1', name: 'iPhone · Safari', service: 'web.push.apple.com', last: null }]);
  // The keys and the endpoint's path stay in the host's file.
  expect(JSON.stringify(json)).not.toContain('QGx');
  expect(await termio(['companion', 'devices', 'remove'])).toMatchObject({
    code: 2,
    err: expect.stringContaining("expected 'devices [--json]' or 'devices remove ID'"),
  });
  expect(await termio(['companion', 'devices', 'remove', 'no-such-device'])).toMatchObject({
    code: 1,
    err: expect.stringContaining('no device no-such-device is registered'),
  });
  expect(await termio(['companion', 'devices', 'remove', 'cli-phone-1'])).toMatchObject({
    code: 0,
    out: 'removed cli-phone-1; nothing more is pushed to it\n',
  });
  expect(JSON.parse((await termio(['companion', 'devices', '--json'])).out).devices).toEqual([]);
  // A corrupt subscriptions file: named, left as it is, and nothing listed from it.
  const file = join(home, '.termio', 'push-subscriptions.json');
  writeFileSync(file, '{"version":1,"devices":[{"id":"x"}]}');
  const bad = await termio(['companion', 'devices']);
  expect(bad).toMatchObject({ code: 1, err: expect.stringContaining(`${file}: devices.0.id: a device id is 8 to 64 letters`) });
  expect(readFileSync(file, 'utf8')).toBe('{"version":1,"devices":[{"id":"x"}]}');
});
