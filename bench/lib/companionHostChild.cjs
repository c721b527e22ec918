// The bench's session host: a real HostProcess (dist/) in this child process, with the web
// companion on, plus what the bench needs and the host does not offer yet: moving a session to
// a state (one JSON line on stdin), and a bare WebSocket server as the same-run reference.
// It also reports its own event-loop delay between two `lag` commands, and when sessions last
// turned to attention and had a question answered (the question bench's host-side clocks), and
// makes a bare HTTPS POST on request (the push bench's reference: the same process, no web-push).
// Answers each command with one JSON line on stdout, stamped with the epoch time in ms.
'use strict';
const { join } = require('node:path');
const { createInterface } = require('node:readline');
const root = join(__dirname, '..', '..');
const { HostProcess } = require(join(root, 'dist/app/host/hostProcess.js'));
const { createLogger } = require(join(root, 'dist/app/services/log.js'));
const { WebSocketServer } = require('ws');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const now = () => performance.timeOrigin + performance.now();
const reply = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

(async () => {
  const started = await HostProcess.start({ env: process.env, logger: createLogger(join(process.env.TERMIO_HOME, 'logs', 'host.log')), idleExitMs: 0 });
  if (!started.ok) throw new Error(started.message);
  const host = started.host;
  const ref = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => ref.once('listening', r));
  let lag = null;
  const attentionAt = new Map();
  const answeredAt = new Map();
  let refInAt = 0;
  host.registry.onStateChanged((c) => c.record.state === 'attention' && attentionAt.set(c.record.id, now()));
  host.host.questions.onQuestion((e) => e.question?.answered && answeredAt.set(e.sessionId, now()));
  ref.on('connection', (ws) => ws.on('message', () => (refInAt = now())));
  reply({ ready: true, refPort: ref.address().port });
  for await (const line of createInterface({ input: process.stdin })) {
    const cmd = JSON.parse(line);
    if (cmd.t === 'state') {
      const t0 = now();
      host.registry.setState(cmd.id, cmd.state, 'bench');
      reply({ t0 });
    } else if (cmd.t === 'ref') {
      const t0 = now();
      for (const ws of ref.clients) ws.send(JSON.stringify({ n: cmd.n }));
      reply({ t0 });
    } else if (cmd.t === 'clocks') {
      reply({ attentionAt: attentionAt.get(cmd.id) ?? 0, answeredAt: answeredAt.get(cmd.id) ?? 0, refInAt });
    } else if (cmd.t === 'https') {
      const t0 = now();
      const req = require('node:https').request(cmd.url, { method: 'POST', headers: { 'Content-Length': '0' } }, (res) => res.resume());
      req.on('error', () => undefined);
      req.end();
      reply({ t0 });
    } else if (cmd.t === 'lag') {
      // The host's own event-loop delay over a phase: what the host did, apart from the machine.
      if (lag) {
        lag.disable();
        reply({ p50: lag.percentile(50) / 1e6, p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 });
      } else reply({});
      lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
    } else if (cmd.t === 'stop') {
      ref.close();
      await host.stop('bench over');
      reply({ stopped: true });
      process.exit(0);
    }
  }
})();
