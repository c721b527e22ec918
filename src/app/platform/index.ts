export { startQtRuntime, type QtRuntime } from './runtime';
export { appLaunchCommand, appRoot, type LaunchCommand } from './launch';
