// Agent icons as Qt icons: the manifest's file (PNG or SVG), with its optional tint applied to
// SVG marks (every fill and stroke colour becomes the tint, as a template image would be drawn).
// One cache for the sidebar, the picker and the tray.
import { QIcon, QLabel, QPixmap } from '@nodegui/nodegui';
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

/** A label `px` logical pixels square showing an agent's icon (drawn at twice the size, so it is
 *  sharp on a HiDPI screen), or empty for an agent without one. */
export function agentIconLabel(agent: { iconFile?: string | undefined; manifest: { icon?: { tint?: string } | undefined } } | undefined, px: number): QLabel {
  const label = new QLabel();
  if (agent?.iconFile) {
    const pm = agentIcon(agent.iconFile, agent.manifest.icon?.tint).pixmap(px * 2, px * 2);
    pm.setDevicePixelRatio(2);
    label.setPixmap(pm);
  }
  label.setFixedSize(px, px);
  return label;
}
