// The page's files, read once from the bundle the build wrote (dist/web) into memory and served
// by exact name only: a request can never name a path on disk, so there is no traversal to get
// wrong and no directory to list. The files carry no data; the page fetches that with its token.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

export interface Asset {
  body: Buffer;
  type: string;
}

export type AssetsLoad = { ok: true; assets: Map<string, Asset> } | { ok: false; message: string };

/** Every file directly in `dir` with a known type, keyed by its URL path; `/` is index.html. */
export function loadAssets(dir: string): AssetsLoad {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return {
      ok: false,
      message: `the companion page is not built (${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); run npm run setup`,
    };
  }
  const assets = new Map<string, Asset>();
  for (const name of names) {
    const type = TYPES[extname(name)];
    const file = join(dir, name);
    if (!type || !statSync(file).isFile()) continue;
    assets.set(`/${name}`, { body: readFileSync(file), type });
  }
  const index = assets.get('/index.html');
  if (!index) return { ok: false, message: `the companion page is not built (${dir} has no index.html); run npm run setup` };
  assets.set('/', index);
  return { ok: true, assets };
}
