// A real browser for the companion's tests: Debian's chromium (installed by `npm test` with the
// other test packages; a Chrome or Chromium app on macOS), headless, driven by playwright-core.
// Root (CI) needs --no-sandbox.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** A phone as the companion's tests open the page: an iPhone-sized screen at 2x, touch, dark. */
export const PHONE_CONTEXT = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  colorScheme: 'dark',
} satisfies BrowserContextOptions;

export const CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** `args`: further command-line switches (a test that serves a throwaway certificate to a service
 *  worker passes --ignore-certificate-errors: Chromium registers none from an untrusted origin). */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const executablePath = process.env.TERMIO_CHROMIUM ?? CHROMIUM_PATHS.find((p) => existsSync(p));
  if (!executablePath)
    throw new Error(`no Chromium found (looked at ${CHROMIUM_PATHS.join(', ')}); run npm test, which installs Debian's chromium, or set TERMIO_CHROMIUM`);
  return chromium.launch({ executablePath, headless: true, args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), ...args] });
}

/** What a page hears from now on: the text messages it receives over its WebSockets, and the
 *  paths it asks for over HTTP. Shows whether a change reached it pushed or by asking again. */
export function watchTraffic(page: Page): { frames: string[]; requests: string[] } {
  const seen = { frames: [] as string[], requests: [] as string[] };
  page.on('websocket', (ws) =>
    ws.on('framereceived', (f) => {
      if (typeof f.payload === 'string') seen.frames.push(f.payload);
    }),
  );
  page.on('request', (r) => seen.requests.push(new URL(r.url()).pathname));
  return seen;
}
