// Ports for servers a test starts on a fixed number (a host's companion, a test sshd).
// A port found with listen(0) and released comes from the kernel's ephemeral range, the range it
// also hands every other listen(0) and every outgoing connection: between our release and the
// server's bind, a parallel test's loopback model server took the same port once, the host could
// not listen, and the test's connections went to a server that never drops them. So pick below
// the ephemeral range, at random, and check that the port is free right now.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 20_000;

/** The first port of the kernel's ephemeral range (Linux's sysctl, else the common 32768). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > LOWEST + 1000) return first;
  } catch {
    // not Linux
  }
  return 32_768;
}

const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A loopback port outside the ephemeral range that nothing listens on now, never the same twice in one process. */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${end}`);
}
