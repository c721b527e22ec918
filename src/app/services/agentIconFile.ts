// Which image file shows an agent's icon: a built-in brand mark (assets/icons/<vector>.svg), the
// user's own PNG/SVG beside the manifest, or the bundled fallback glyph of an SF Symbol (macOS
// can draw the symbol natively; the UI decides). Anything missing falls back to a generic mark.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Manifest } from '../../protocol/manifestSchema';
import { installPath } from './install';

/** assets/icons of this installation (src/app/host and dist/app/host both sit three levels down). */
export const DEFAULT_ICONS_DIR = installPath('assets', 'icons');
/** The mark used when an agent has no usable icon. */
export const GENERIC_ICON = 'agent.svg';

export interface ResolvedIcon {
  /** Absolute path of the image to draw. */
  file: string;
  /** Set when the manifest's icon could not be used; the message names the field. */
  warning?: string;
}

export function resolveAgentIcon(manifest: Manifest, manifestFile: string, opts: { iconsDir?: string; env?: NodeJS.ProcessEnv } = {}): ResolvedIcon {
  const iconsDir = opts.iconsDir ?? DEFAULT_ICONS_DIR;
  const generic = join(iconsDir, GENERIC_ICON);
  const icon = manifest.icon;
  if (!icon) return { file: generic };
  if (icon.vector !== undefined) {
    const file = join(iconsDir, `${icon.vector}.svg`);
    if (isFile(file)) return { file };
    return {
      file: generic,
      warning: `icon.vector: no built-in mark named "${icon.vector}" (known: ${builtinMarks(iconsDir).join(', ')}); using the generic mark`,
    };
  }
  if (icon.path !== undefined) {
    const home = opts.env?.HOME || homedir();
    const file = icon.path.startsWith('~/') ? join(home, icon.path.slice(2)) : isAbsolute(icon.path) ? icon.path : resolve(dirname(manifestFile), icon.path);
    if (isFile(file)) return { file };
    return { file: generic, warning: `icon.path: no such file: ${file}; using the generic mark` };
  }
  if (icon.symbol !== undefined) {
    const symbols = join(iconsDir, 'symbols');
    for (const name of [icon.symbol, icon.symbol.split('.')[0]]) {
      const file = join(symbols, `${name}.svg`);
      if (isFile(file)) return { file };
    }
    return { file: generic };
  }
  return { file: generic };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

const marksCache = new Map<string, string[]>();
function builtinMarks(iconsDir: string): string[] {
  let names = marksCache.get(iconsDir);
  if (!names) {
    names = existsSync(iconsDir)
      ? readdirSync(iconsDir)
          .filter((f) => f.endsWith('.svg') && f !== GENERIC_ICON)
          .map((f) => f.slice(0, -4))
          .sort()
      : [];
    marksCache.set(iconsDir, names);
  }
  return names;
}
