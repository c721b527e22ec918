// `~` in paths, both ways: manifests and users write `~/…`, and messages show paths the way users
// type them. Pure: the caller passes the home folder (the user's, or a test's).

/**
 * Expands a leading `~` (alone or followed by '/') to home. `~user` forms and everything else
 * are returned unchanged.
 */
export function expandHome(path: string, home: string): string {
  if (path !== '~' && !path.startsWith('~/')) return path;
  const base = trimSlashes(home);
  if (path === '~' || path === '~/') return base || '/';
  return `${base === '/' ? '' : base}/${path.slice(2)}`;
}

/**
 * `~` for home itself and `~/…` for a path below it; any other path unchanged. Only whole folder
 * names match: with home `/home/al`, `/home/alice/x` stays as it is.
 */
export function shortenHome(path: string, home: string): string {
  const base = trimSlashes(home);
  if (!base || base === '/') return path;
  if (path === base || path === `${base}/`) return '~';
  return path.startsWith(`${base}/`) ? `~${path.slice(base.length)}` : path;
}

function trimSlashes(home: string): string {
  return home.length > 1 ? home.replace(/\/+$/, '') : home;
}
