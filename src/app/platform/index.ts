export { startQtRuntime, type QtRuntime } from './runtime';
export { IdleTrim } from './idleTrim';
export { appLaunchCommand, appRoot, type LaunchCommand } from './launch';
