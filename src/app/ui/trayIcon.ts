// The tray icon as SVG text for each aggregate state: calm grey when idle, blue with a turning
// arc while agents work (one frame per tick), a green check when something finished, and an
// orange badge with the count of sessions that need you. Pure strings; tray.ts loads them into Qt.
// Menu bars draw it at 16-22 px: badges take a quarter of the icon so they still read there.
import type { SessionState } from '../../protocol/status/sessionState';
import { darkStateColors } from './stateColors';

/** Frames of the working animation; at TRAY_FRAME_MS each, one turn takes ~1.2 s: alive, not busy. */
export const TRAY_FRAMES = 12;
export const TRAY_FRAME_MS = 100;

const colors = darkStateColors;

function glyph(color: string, opacity = 1): string {
  return `<g opacity="${opacity}"><rect x="6" y="10" width="52" height="44" rx="10" fill="none" stroke="${color}" stroke-width="5"/>
<path d="M17 25 L26 32 L17 39" fill="none" stroke="${color}" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>
<rect x="30" y="36" width="14" height="5" rx="2.5" fill="${color}"/></g>`;
}

export function trayIconSvg(state: SessionState, opts: { count?: number; frame?: number } = {}): string {
  let body: string;
  switch (state) {
    case 'idle':
      body = glyph(colors.idle);
      break;
    case 'working': {
      const angle = ((opts.frame ?? 0) % TRAY_FRAMES) * (360 / TRAY_FRAMES);
      body = `${glyph(colors.working)}
<circle cx="49" cy="49" r="15" fill="${colors.working}" stroke="#11141a" stroke-width="2"/>
<g transform="rotate(${angle} 49 49)"><path d="M49 40 A9 9 0 1 1 40 49" fill="none" stroke="#0d1b2a" stroke-width="5" stroke-linecap="round"/></g>`;
      break;
    }
    case 'done':
      body = `${glyph(colors.idle)}
<circle cx="49" cy="49" r="15" fill="${colors.done}" stroke="#11141a" stroke-width="2"/>
<path d="M42.5 49 L47.5 54 L56 45" fill="none" stroke="#0f1a14" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>`;
      break;
    case 'attention': {
      const n = Math.max(1, opts.count ?? 1);
      const text = n > 9 ? '9+' : String(n);
      body = `${glyph(colors.attention)}
<circle cx="48" cy="48" r="16" fill="${colors.attention}" stroke="#11141a" stroke-width="3"/>
<text x="48" y="55" text-anchor="middle" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-weight="bold" font-size="${text.length > 1 ? 17 : 21}" fill="#1a1005">${text}</text>`;
      break;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">${body}</svg>`;
}
