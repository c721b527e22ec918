// Termio's app entry: boot the Qt runtime for this OS first (NodeGUI must not load before it),
// then hand over to the UI, which builds the host services and the windows. A second launch
// finds the first one's control socket, asks it to show a window, and leaves.
import { startQtRuntime } from './platform';

async function main(): Promise<void> {
  const runtime = startQtRuntime('termio');
  // Loaded only now: every module under ./ui imports @nodegui/nodegui at its top.
  const { runTermio } = require('./ui/app') as typeof import('./ui/app');
  const result = await runTermio(runtime);
  if (result.kind === 'running') return;
  runtime.stop();
  if (result.kind === 'failed') {
    process.stderr.write(`termio: cannot start: ${result.message}\n`);
    process.exit(1);
  }
  const { ControlClient } = require('./cli/controlClient') as typeof import('./cli/controlClient');
  const client = await ControlClient.connect(process.env);
  if ('kind' in client) {
    process.stderr.write(`termio: another Termio${result.pid ? ` (pid ${result.pid})` : ''} holds the control socket but did not answer: ${client.message}\n`);
    process.exit(1);
  }
  const reply = await client.request('app.activate', {});
  client.close();
  process.exit(reply.ok ? 0 : 1);
}

void main();
