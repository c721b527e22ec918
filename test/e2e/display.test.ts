// The harness's X server itself. An X server resets when its last client disconnects and
// refuses clients that connect during the reset; tests stop one app and start the next all the
// time, so that once made an app abort with "could not connect to display". Many short clients
// that overlap (one leaving as the next arrives) must all get through.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Display, e2eSkipReason } from './harness';

function client(display: Display): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn('xdotool', ['getdisplaygeometry'], { env: { ...process.env, DISPLAY: display.name }, stdio: 'ignore' });
    p.once('exit', (code) => resolve(code));
  });
}

describe.skipIf(e2eSkipReason)('test display', () => {
  let display: Display;
  beforeAll(async () => {
    display = await Display.start('640x480x24');
  });
  afterAll(async () => {
    await display?.stop();
  });

  it('accepts every client, even one that connects while the last one disconnects', async () => {
    // Two clients at a time, each started the moment another ends: connects and disconnects overlap.
    const codes: (number | null)[] = [];
    const lane = async () => {
      while (codes.length < 300) codes.push(await client(display));
    };
    await Promise.all([lane(), lane()]);
    expect(codes.filter((c) => c !== 0)).toEqual([]);
    expect(display.health()).toMatch(/is running/);
  });
});
