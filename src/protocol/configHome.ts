// A manifest's `configHome`: an agent whose config folder an environment variable moves
// (CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME, …) has its hooks, skills and session store under
// that variable's value when it is set, and so is its MCP config when it lies in that folder. Pure: the manifest with those paths moved.
import type { Manifest } from './manifestSchema';

/** `path` with the `from` folder at its start replaced by `to` (whole folder names only). */
function moved(path: string | undefined, from: string, to: string): string | undefined {
  if (path === undefined) return undefined;
  if (path === from) return to;
  return path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : path;
}

/** The manifest as it applies with this environment (unchanged when the variable is unset or empty). */
export function withConfigHome(m: Manifest, env: Readonly<Record<string, string | undefined>>): Manifest {
  const home = m.configHome;
  const value = home ? env[home.env]?.trim() : undefined;
  if (!home || !value) return m;
  const from = home.path.replace(/\/+$/, '');
  const to = value.replace(/\/+$/, '') || '/';
  const mv = (p: string | undefined) => moved(p, from, to);
  const out: Manifest = { ...m };
  if (m.hooks) {
    const hooks = { ...m.hooks };
    if (hooks.file !== undefined) hooks.file = mv(hooks.file)!;
    if (hooks.dir !== undefined) hooks.dir = mv(hooks.dir)!;
    out.hooks = hooks;
  }
  if (m.skills !== undefined) out.skills = mv(m.skills)!;
  if (m.mcp) out.mcp = { ...m.mcp, file: m.mcp.inConfigHome !== undefined ? `${to.replace(/\/$/, '')}/${m.mcp.inConfigHome}` : mv(m.mcp.file)! };
  if (m.resume) {
    const resume = { ...m.resume };
    if (resume.storeRoot !== undefined) resume.storeRoot = mv(resume.storeRoot)!;
    if (resume.discover) resume.discover = { ...resume.discover, root: mv(resume.discover.root)! };
    out.resume = resume;
  }
  if (m.history) out.history = { ...m.history, paths: m.history.paths.map((p) => mv(p)!) };
  return out;
}
