// A manifest's history.paths globs, compiled: the literal folder to watch and a test for the
// files below it. "*" matches within one name, "**" any run of folders (none included). Pure.

export interface HistoryGlob {
  /** The glob as written ("~/" already expanded). */
  glob: string;
  /** The deepest folder with no wildcard: what is watched. */
  root: string;
  /** How many folders below root a match may lie (Infinity with "**"). */
  depth: number;
  /** Does this absolute path match? */
  matches(path: string): boolean;
}

function segmentRegex(segment: string): string {
  return segment
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
}

/** Compiles one glob; `home` replaces a leading "~". */
export function compileHistoryGlob(glob: string, home: string): HistoryGlob {
  const expanded = glob.startsWith('~/') ? `${home.replace(/\/+$/, '')}${glob.slice(1)}` : glob;
  const segments = expanded.split('/').filter((s, i) => i === 0 || s !== '');
  const firstWild = segments.findIndex((s) => s.includes('*'));
  const literal = firstWild === -1 ? segments.length - 1 : firstWild;
  const root = segments.slice(0, literal).join('/') || '/';
  const rest = segments.slice(literal);
  const deep = rest.includes('**');
  const parts = rest.map((s) => (s === '**' ? '(?:[^/]+/)*' : `${segmentRegex(s)}/`));
  const re = new RegExp(`^${parts.join('').replace(/\/$/, '')}$`);
  const prefix = root === '/' ? '/' : `${root}/`;
  return {
    glob: expanded,
    root,
    depth: deep ? Infinity : rest.length - 1,
    matches: (path) => path.startsWith(prefix) && re.test(path.slice(prefix.length)),
  };
}
