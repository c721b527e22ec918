// The tab's icon: a dot in the aggregate state's colour (what the tray icon shows), with the
// number of sessions needing the user on it. Drawn on a canvas into a data: URL.
import type { SessionState } from '../../protocol/status/sessionState';

/** Favicons are drawn at 64 px and scaled down by the browser: sharp on high-density screens. */
const SIZE = 64;

let last = '';

export function drawFavicon(state: SessionState, attention: number): void {
  const key = `${state}:${attention}`;
  if (key === last) return;
  last = key;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = SIZE;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  // The page's own state colour (style.css), so the icon matches the list.
  ctx.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(`--${state}`).trim() || 'gray';
  ctx.beginPath();
  ctx.arc(SIZE / 2, SIZE / 2, SIZE / 2 - 2, 0, Math.PI * 2);
  ctx.fill();
  if (attention > 0) {
    ctx.fillStyle = '#1b1d22';
    ctx.font = `bold ${SIZE * 0.6}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(attention > 9 ? '9+' : String(attention), SIZE / 2, SIZE / 2 + 2);
  }
  (document.getElementById('favicon') as HTMLLinkElement).href = canvas.toDataURL('image/png');
}
