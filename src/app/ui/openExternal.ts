// Opens a URL or file with the desktop's handler (`open` on macOS, `xdg-open` elsewhere),
// detached, so a slow browser never holds up the app. Returns false when it could not start.
import { spawn } from 'node:child_process';

export function openExternal(target: string): boolean {
  try {
    const child = spawn(process.platform === 'darwin' ? 'open' : 'xdg-open', [target], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
