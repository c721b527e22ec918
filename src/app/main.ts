// Termio's app entry: boot the Qt runtime for this OS first (NodeGUI must not load before it),
// then hand over to the UI, which builds the host services and the windows.
import { startQtRuntime } from './platform';

const runtime = startQtRuntime('termio');
// Loaded only now: every module under ./ui imports @nodegui/nodegui at its top.
const { runTermio } = require('./ui/app') as typeof import('./ui/app');
runTermio(runtime);
