// How to start the Termio app process on this OS (the host starts it too, so it lives in the host
// layer: src/app/services/appLaunch.ts).
export { appLaunchCommand, appRoot, bundledQode, withoutEntryPreload, type LaunchCommand } from '../services/appLaunch';
