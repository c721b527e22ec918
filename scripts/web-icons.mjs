#!/usr/bin/env node
// Draws the companion page's app icons (web app manifest: 192 and 512 px, and a 512 px
// "maskable" one whose glyph sits inside the middle 80 % a launcher may crop to a circle) from
// the brand icon assets/brand/termio.svg, in headless Chromium, into assets/brand/web/. The PNGs
// are committed, so building needs no renderer; run this again after the brand icon changes.
//   node scripts/web-icons.mjs
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'assets', 'brand', 'termio.svg'), 'utf8');
const url = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
/** The page's dark background (src/app/web/style.css --bg): the maskable icon's full bleed. */
const BG = '#1b1d22';
const ICONS = [
  { file: 'icon-192.png', size: 192, glyph: 1, bg: 'transparent' },
  { file: 'icon-512.png', size: 512, glyph: 1, bg: 'transparent' },
  { file: 'icon-maskable-512.png', size: 512, glyph: 0.7, bg: BG },
];

const browser = await chromium.launch({
  executablePath: process.env.TERMIO_CHROMIUM ?? '/usr/bin/chromium',
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
});
try {
  for (const i of ICONS) {
    const page = await browser.newPage({ viewport: { width: i.size, height: i.size } });
    const g = Math.round(i.size * i.glyph);
    await page.setContent(
      `<body style="margin:0;background:${i.bg};display:grid;place-items:center;width:${i.size}px;height:${i.size}px">` +
        `<img src="${url}" width="${g}" height="${g}"></body>`,
    );
    await page.screenshot({ path: join(root, 'assets', 'brand', 'web', i.file), omitBackground: i.bg === 'transparent' });
    await page.close();
  }
} finally {
  await browser.close();
}
