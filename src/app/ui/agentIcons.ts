// Agent icons as Qt icons: the manifest's file (PNG or SVG), with its optional tint applied to
// SVG marks (every fill and stroke colour becomes the tint, as a template image would be drawn).
// One cache for the sidebar, the picker and the tray.
import { QIcon, QPixmap } from '@nodegui/nodegui';
import { readFileSync } from 'node:fs';
import { tintSvg } from './svgTint';

const cache = new Map<string, QIcon>();

export function agentIcon(file: string, tint?: string): QIcon {
  const key = `${file}\u0000${tint ?? ''}`;
  let icon = cache.get(key);
  if (icon) return icon;
  icon = new QIcon(file);
  if (tint && file.toLowerCase().endsWith('.svg')) {
    try {
      const pm = new QPixmap();
      if (pm.loadFromData(Buffer.from(tintSvg(readFileSync(file, 'utf8'), tint)), 'SVG')) icon = new QIcon(pm);
    } catch {
      // An unreadable file draws untinted (the catalog already reported it).
    }
  }
  cache.set(key, icon);
  return icon;
}
