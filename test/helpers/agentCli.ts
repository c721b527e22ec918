// Real agent CLIs from npm for the tests that must run the real thing: installed once into a
// cache folder outside the repository ($TERMIO_AGENT_CLI_CACHE, else ~/.cache/termio/agent-clis),
// never into package.json. On a developer's machine a registry that cannot be reached is a reason
// to skip; where CI is set it fails the run with that reason, so a green CI always ran them.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { everyTestMustRun } from './required';

export type AgentCli = { ok: true; path: string; version: string } | { ok: false; reason: string };

/** A fresh install downloads the CLI's native binary (~70 MB for Claude Code); past this we skip
 *  rather than stall CI (npm's own cache makes the next attempt quick). */
export const AGENT_CLI_INSTALL_TIMEOUT_MS = 45_000;
/** `--version` of a healthy CLI answers in ~0.1 s, but a cold start of a 300 MB binary on a
 *  starved machine can take many seconds, and a CLI that seems not to run is installed again into
 *  the shared cache (racing the other test files that use it): only a hung one is given up on. */
const VERSION_TIMEOUT_MS = 60_000;
/** One metadata request answers in well under a second; an unreachable registry would otherwise
 *  cost npm's retries (~45 s) before we could skip. */
const REGISTRY_PROBE_TIMEOUT_MS = 5_000;

export function agentCliCacheDir(): string {
  return process.env.TERMIO_AGENT_CLI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'termio', 'agent-clis');
}

/** Runs `<bin> --version` in a throwaway HOME with self-updates off; the first line it printed, or null. */
function versionOf(bin: string): string | null {
  const home = mkdtempSync(join(tmpdir(), 'termio-agent-cli-'));
  try {
    const r = spawnSync(bin, ['--version'], {
      encoding: 'utf8',
      timeout: VERSION_TIMEOUT_MS,
      env: { PATH: process.env.PATH ?? '', HOME: home, DISABLE_AUTOUPDATER: '1' },
    });
    // Most print it on stdout; Pi prints it on stderr.
    const said = r.stdout.trim() || r.stderr.trim();
    return r.status === 0 && said ? said.split('\n')[0]! : null;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The CLI's executable among the candidates (package-relative paths), if one runs. */
function findWorking(root: string, candidates: string[]): { path: string; version: string } | null {
  for (const c of candidates) {
    const path = join(root, c);
    if (!existsSync(path)) continue;
    const version = versionOf(path);
    if (version) return { path, version };
  }
  return null;
}

/** Whether the registry answers for the package at all, quickly and without retries. */
function registryAnswers(pkg: string): { ok: true } | { ok: false; reason: string } {
  const r = spawnSync('npm', ['view', pkg, 'version', '--fetch-retries=0', `--fetch-timeout=${REGISTRY_PROBE_TIMEOUT_MS}`], {
    encoding: 'utf8',
    timeout: REGISTRY_PROBE_TIMEOUT_MS + 5_000,
    cwd: tmpdir(),
  });
  if (r.error) return { ok: false, reason: `npm could not run: ${r.error.message}` };
  if (r.status !== 0)
    return {
      ok: false,
      reason: `the npm registry did not answer for ${pkg}: ${r.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ') || `exit ${r.status}`}`,
    };
  return { ok: true };
}

function npmInstall(prefix: string, specs: string[]): Promise<{ ok: true } | { ok: false; reason: string }> {
  const pkg = specs.join(' ');
  return new Promise((resolve) => {
    mkdirSync(prefix, { recursive: true });
    // Whether npm runs the CLI's postinstall (which links its native binary into bin/) depends on
    // the caller's npm settings; a caller's candidates also name where the binary lies without it.
    const child = spawn('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
      cwd: prefix,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      resolve({ ok: false, reason: `npm install ${pkg} did not finish within ${AGENT_CLI_INSTALL_TIMEOUT_MS / 1000} s` });
    }, AGENT_CLI_INSTALL_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `npm could not start: ${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const last = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
      resolve(code === 0 ? { ok: true } : { ok: false, reason: `npm install ${pkg} failed (exit ${code}): ${last || 'no message'} (registry unreachable?)` });
    });
  });
}

/**
 * The installed CLI, installing it first when the cache has none that runs. `candidates` are
 * paths under the cache folder to try in order (the npm bin link first; a platform package's
 * binary as a fallback for when npm skipped the postinstall that links it).
 */
export async function ensureNpmAgentCli(pkg: string, candidates: string[]): Promise<AgentCli> {
  const cli = await findOrInstall(pkg, candidates);
  if (!cli.ok && everyTestMustRun()) throw new Error(`CI is set, so the real ${pkg} must run here, but it cannot: ${cli.reason}`);
  return cli;
}

async function findOrInstall(pkg: string, candidates: string[], root = agentCliCacheDir(), specs = [pkg]): Promise<AgentCli> {
  const found = findWorking(root, candidates);
  if (found) return { ok: true, ...found };
  const reachable = registryAnswers(pkg);
  if (!reachable.ok) return reachable;
  const installed = await npmInstall(root, specs);
  if (!installed.ok) return installed;
  const after = findWorking(root, candidates);
  return after ? { ok: true, ...after } : { ok: false, reason: `${pkg} installed into ${root} but none of ${candidates.join(', ')} runs` };
}

/** OpenAI Codex's newest release: the npm bin link (a Node launcher that runs this platform's native binary). */
export function ensureCodex(): Promise<AgentCli> {
  return ensureNewestNpmAgentRelease('@openai/codex', ['node_modules/.bin/codex']);
}

/** The folder one release of an npm CLI is installed into. */
function agentReleaseDir(pkg: string, version: string): string {
  return join(agentCliCacheDir(), 'releases', `${pkg.replace('/', '+')}@${version}`);
}

/**
 * One release of an npm CLI, cached in a folder of its own beside the current one
 * (`releases/<pkg>@<version>`), so the suite runs each of the releases people have. `extra` are
 * packages installed beside it in the same npm install (a platform package the shim's own range
 * misses); `{version}` in one is replaced by the release. Where CI is set a release that cannot
 * be installed throws, naming it.
 */
export async function ensureNpmAgentRelease(pkg: string, version: string, candidates: string[], extra: string[] = []): Promise<AgentCli> {
  const specs = [`${pkg}@${version}`, ...extra.map((e) => e.replaceAll('{version}', version))];
  const cli = await findOrInstall(pkg, candidates, agentReleaseDir(pkg, version), specs);
  if (!cli.ok && everyTestMustRun()) throw new Error(`CI is set, so ${pkg}@${version} must run here, but it cannot: ${cli.reason}`);
  return cli;
}

/**
 * The newest `count` releases of a package on the registry, oldest first: plain x.y.z versions
 * (no pre-releases, no platform builds such as Codex's `0.171.0-linux-x64`), as `npm view <pkg>
 * versions --json` lists them.
 */
export function newestReleases(pkg: string, count = 2): { ok: true; versions: string[] } | { ok: false; reason: string } {
  const r = spawnSync('npm', ['view', pkg, 'versions', '--json', '--fetch-retries=0', `--fetch-timeout=${REGISTRY_PROBE_TIMEOUT_MS}`], {
    encoding: 'utf8',
    timeout: REGISTRY_PROBE_TIMEOUT_MS + 5_000,
    cwd: tmpdir(),
  });
  const fail = (reason: string) => {
    if (everyTestMustRun()) throw new Error(`CI is set, so the releases of ${pkg} must be listed here, but: ${reason}`);
    return { ok: false as const, reason };
  };
  if (r.error || r.status !== 0) return fail(`npm view ${pkg} versions failed: ${r.error?.message ?? r.stderr.trim().split('\n').slice(-1)[0]}`);
  const all = JSON.parse(r.stdout) as string[] | string;
  const plain = (Array.isArray(all) ? all : [all]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  plain.sort((a, b) => {
    const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
  return plain.length ? { ok: true, versions: plain.slice(-count) } : fail(`npm lists no release of ${pkg}`);
}

/**
 * The newest release of an npm CLI (the newest of the releases the release matrix runs), installed
 * by ensureNpmAgentRelease: what a test that runs one real CLI runs, so a fresh machine runs what
 * users get rather than what a cache happened to hold. Where CI is set, a registry that cannot list
 * the releases throws.
 */
export async function ensureNewestNpmAgentRelease(pkg: string, candidates: string[], extra: string[] = []): Promise<AgentCli> {
  const releases = newestReleases(pkg);
  if (!releases.ok) return releases;
  return ensureNpmAgentRelease(pkg, releases.versions.at(-1)!, candidates, extra);
}
