// Termio's app entry: boot the Qt runtime for this OS first (NodeGUI must not load before it),
// then hand over to the UI, which connects to the session host (starting it on first need) and
// opens the windows. A second launch finds the first app attached to the host, asks it to come
// forward, and leaves.
import { HOST_PROCESS_ENV } from './client/hostLauncher';
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
  process.exit(0);
}

// Inside Termio.app, qode preloads this entry into every process it runs, the session host too
// (its starter marks it): there, this is not the app.
if (process.env[HOST_PROCESS_ENV] !== '1') void main();
