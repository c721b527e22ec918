export { startQtRuntime, type QtRuntime } from './runtime';
export { IdleTrim, IDLE_TRIM_MS } from './idleTrim';
export { appLaunchCommand, appRoot, type LaunchCommand } from './launch';
