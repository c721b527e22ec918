#!/usr/bin/env node
// Stands in for `termio host --stdio` on a machine the hub connects (a fake `ssh` on the hub's PATH
// runs it): it says hello as a host with the hub capability, answers app.subscribe with the
// sessions in $FAKE_MACHINE_SESSIONS ({ "snapshot": [...], "events": [...] }), then sends each of
// "events" as a `session` event, and answers every other request with an empty ok. Whatever those
// sessions hold is sent as is: the tests use it to play a broken or hostile machine.
import { readFileSync } from 'node:fs';

const script = JSON.parse(readFileSync(process.env.FAKE_MACHINE_SESSIONS, 'utf8'));
const send = (value) => {
  const body = Buffer.from(JSON.stringify(value));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  head[4] = 1;
  return process.stdout.write(Buffer.concat([head, body]));
};

let buf = Buffer.alloc(0);
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const len = buf.readUInt32BE(0);
    const kind = buf[4];
    const body = buf.subarray(5, 4 + len);
    buf = buf.subarray(4 + len);
    if (kind !== 1) continue;
    const m = JSON.parse(body.toString('utf8'));
    if (m.t === 'hello') {
      send({ t: 'hello', protocol: m.protocol, hostVersion: m.version, capabilities: ['app', 'machines'], pid: process.pid, hostId: 'fake-machine' });
    } else if (m.method === 'app.subscribe') {
      send({ t: 'res', id: m.id, ok: true, result: { sessions: script.snapshot } });
      for (const session of script.events ?? []) send({ t: 'event', event: 'session', session });
    } else if (m.id !== undefined) {
      send({ t: 'res', id: m.id, ok: true, result: {} });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
