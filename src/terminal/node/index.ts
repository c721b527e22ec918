// The terminal's Node half (src/terminal/node): a session on a pty or a holder, the emulator that
// parses it, its feed, serializer and checkpoints. Only the session host loads it at run time.
export { Session, SYNC_OUTPUT_TIMEOUT_MS, KILL_GRACE_MS, type SpawnOptions, type LaunchError, type ExitStatus, type AdoptOptions } from './session';
export { HolderSource, startHolder, type HolderStart } from './holderSource';
export type { PtySource } from './ptySource';
export { MAX_PENDING_INPUT_BYTES } from './ptyInput';
export { createEmulator } from './createEmulator';
export { RenderModel } from './renderModel';
