// The network's return as the hub notices it: an address that was not there at the last look
// fires (one that went away does not), polled by an injected timer from an injected source, so
// nothing here waits for time. Then the hub with a real ssh to a closed loopback port: a machine
// waiting on its backoff is tried at once when an address appears, not when its timer says.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MachinesHub } from '../../src/app/host/machines/hub';
import { MachinesStore } from '../../src/app/host/machines/machinesStore';
import { interfaceAddresses, NETWORK_POLL_MS, NetworkWatch, type NetworkWatchDeps } from '../../src/app/host/machines/networkWatch';
import { nullLogger } from '../../src/app/services/log';
import { waitFor } from '../helpers/waitFor';

/** A network whose addresses the test sets, and a timer the test ticks. */
function fakeNetwork(initial: string[]): NetworkWatchDeps & { set(a: string[]): void; tick(): void; period: number | null; stopped: boolean } {
  let addresses = initial;
  let fn: (() => void) | null = null;
  const net = {
    period: null as number | null,
    stopped: false,
    addresses: () => addresses,
    every: (ms: number, f: () => void) => {
      net.period = ms;
      fn = f;
      return () => {
        net.stopped = true;
        fn = null;
      };
    },
    set: (a: string[]) => (addresses = a),
    tick: () => fn?.(),
  };
  return net;
}

describe('the network watch', () => {
  it('fires when an address appears, not when one goes or nothing changes', () => {
    const net = fakeNetwork(['eth0/IPv4/10.0.0.5']);
    const seen: string[][] = [];
    const w = new NetworkWatch((added) => seen.push(added), net);
    w.start();
    expect(net.period).toBe(NETWORK_POLL_MS);
    net.tick();
    expect(seen).toEqual([]);
    // Wi-Fi dropped: no signal (the links notice a dead connection themselves).
    net.set([]);
    net.tick();
    expect(seen).toEqual([]);
    // Back on another network, and a VPN beside it.
    net.set(['wlan0/IPv4/192.168.1.20', 'tun0/IPv4/10.8.0.2']);
    net.tick();
    expect(seen).toEqual([['wlan0/IPv4/192.168.1.20', 'tun0/IPv4/10.8.0.2']]);
    net.tick();
    expect(seen).toHaveLength(1);
    w.dispose();
    expect(net.stopped).toBe(true);
    expect(w.running).toBe(false);
  });

  it("reads this machine's external addresses, never loopback", () => {
    for (const a of interfaceAddresses()) expect(a).not.toMatch(/\/(127\.0\.0\.1|::1)$/);
  });
});

describe('the hub when the network returns', () => {
  let dir: string | null = null;
  let hub: MachinesHub | null = null;
  afterEach(() => {
    hub?.dispose();
    hub = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('tries an unreachable machine at once, and watches only while there is a machine', async () => {
    dir = mkdtempSync(join(tmpdir(), 'termio-netwatch-'));
    // A loopback port nobody listens on: ssh is refused at once, and the machine waits to retry.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const file = join(dir, 'machines.json');
    writeFileSync(
      file,
      JSON.stringify({ machines: { gone: { target: 'nobody@127.0.0.1', port, sshOptions: ['StrictHostKeyChecking=no', 'UserKnownHostsFile=/dev/null'] } } }),
    );
    const net = fakeNetwork(['eth0/IPv4/10.0.0.5']);
    hub = new MachinesHub(new MachinesStore(file, 'machines.json'), {
      logger: nullLogger,
      version: '0.0.0',
      env: { PATH: process.env.PATH, HOME: dir },
      batch: () => true,
      network: net,
    });
    hub.start();
    expect(net.period).toBe(NETWORK_POLL_MS);
    const link = hub.link('gone')!;
    await waitFor(() => link.state === 'unreachable' && link.retryAt !== null, { what: 'the machine to be refused and wait to retry' });
    // One synchronous step: no timer can fire in between.
    expect(link.retryAt).not.toBeNull();
    net.set(['wlan0/IPv4/192.168.1.20']);
    net.tick();
    // Trying now: no retry is scheduled while the attempt runs.
    expect(link.retryAt).toBeNull();
    await waitFor(() => link.retryAt !== null, { what: 'the new attempt to fail too' });
    expect(link.why).toMatch(/Connection refused|ssh to gone/);
    // No machine left: the watch stops.
    writeFileSync(file, JSON.stringify({ machines: {} }));
    await waitFor(() => net.stopped, { what: 'the watch to stop with the last machine removed' });
  });
});
