#!/usr/bin/env node
// Stands in for `termio host --stdio` of an older Termio release (host protocol 1, version 0.0.9),
// which cannot run here: it reads the client's hello from stdin and refuses it the way that host's
// client socket does, with a versionMismatch error naming its protocol, version and pid, then ends.
const chunks = [];
process.stdin.on('data', (d) => {
  chunks.push(d);
  const buf = Buffer.concat(chunks);
  if (buf.length < 4 || buf.length < 4 + buf.readUInt32BE(0)) return;
  const hello = JSON.parse(buf.subarray(5, 4 + buf.readUInt32BE(0)).toString('utf8'));
  const body = Buffer.from(
    JSON.stringify({
      t: 'error',
      code: 'versionMismatch',
      message: `this host (Termio 0.0.9) speaks protocol 1; the client (${hello.client} ${hello.version}) speaks ${hello.protocol}`,
      protocol: 1,
      hostVersion: '0.0.9',
      pid: process.pid,
    }),
  );
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  head[4] = 1;
  process.stdout.write(Buffer.concat([head, body]), () => process.exit(0));
});
