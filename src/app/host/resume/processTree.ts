// What the host can learn about a session's processes from the OS: the tree below its agent, the
// files that tree holds open (how discovery ties an agent's record to the session that writes it),
// and which programs run in a folder (whether a record written and closed can only be the tab's).
// Linux reads /proc; macOS asks ps and lsof once per question. Where neither answers, the answer
// is null ("cannot tell"), never a guess.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, sep } from 'node:path';

/** ps and lsof answer in tens of milliseconds; a second means they hang, and the answer is "cannot tell". */
const TOOL_TIMEOUT_MS = 1_000;

/** lsof over every process of the user takes longer than over one tree. */
const SCAN_TIMEOUT_MS = 3_000;

const hasProc = () => existsSync('/proc/self/fd');

/** Every running process as pid → parent pid. */
function parentTable(): Map<number, number> | null {
  const table = new Map<number, number>();
  if (hasProc()) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        table.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // It exited while we looked.
      }
    }
    return table;
  }
  try {
    for (const line of execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: TOOL_TIMEOUT_MS }).split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)/.exec(line);
      if (m) table.set(Number(m[1]), Number(m[2]));
    }
    return table;
  } catch {
    return null;
  }
}

/** Each root with all its descendants, per root; null when the process table cannot be read. */
export function processTrees(roots: number[]): Map<number, number[]> | null {
  const table = parentTable();
  if (!table) return null;
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out = new Map<number, number[]>();
  for (const root of roots) {
    const tree: number[] = [];
    const queue = table.has(root) ? [root] : [];
    while (queue.length) {
      const pid = queue.shift()!;
      tree.push(pid);
      queue.push(...(children.get(pid) ?? []));
    }
    out.set(root, tree);
  }
  return out;
}

/** The real paths of the regular files these processes hold open; null when that cannot be read. */
export function openFiles(pids: number[]): Set<string> | null {
  const files = new Set<string>();
  if (pids.length === 0) return files;
  if (hasProc()) {
    for (const pid of pids) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // Exited, or not ours to read.
      }
      for (const fd of fds) {
        try {
          const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
          if (target.startsWith('/')) files.add(target);
        } catch {
          // Closed meanwhile.
        }
      }
    }
    return files;
  }
  try {
    // -Fn: one "n<path>" line per open file; exit 1 when a pid has none, so read stdout either way.
    const out = execFileSync('lsof', ['-n', '-P', '-Fn', '-p', pids.join(',')], {
      encoding: 'utf8',
      timeout: TOOL_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    for (const line of out.split('\n')) if (line.startsWith('n/')) files.add(line.slice(1));
    return files;
  } catch (e) {
    const stdout = (e as { stdout?: string }).stdout;
    if (typeof stdout !== 'string' || stdout === '') return null;
    for (const line of stdout.split('\n')) if (line.startsWith('n/')) files.add(line.slice(1));
    return files;
  }
}

/** realpath when the file exists, else the path itself (records are compared by real path). */
export function realPathOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/** A process whose current folder is a given folder (or below it), by the names it runs as. */
export interface FolderProcess {
  pid: number;
  names: string[];
}

/** Launchers and interpreters: a process named so is known by the script or program it runs. */
const RUNNERS = /^(node|nodejs|bun|deno|python[\d.]*|pypy[\d.]*|ruby|perl|java|sh|bash|zsh|fish|dash|ksh|env|npx|npm|pnpm|yarn|uv|uvx|pipx|exec)$/;

/** The names a command line runs as: its program's and, for a runner, its script's (lowercase,
 *  without a script extension), e.g. `node /x/bin/codex.js resume` → codex. */
export function programNames(argv: readonly string[], exe?: string): string[] {
  const name = (p: string) =>
    basename(p)
      .toLowerCase()
      .replace(/\.(c?js|mjs|ts|py|exe)$/, '');
  const names = new Set<string>();
  for (const p of [exe, argv[0]]) if (p) names.add(name(p));
  const runner = [...names].some((n) => RUNNERS.test(n));
  if (runner)
    for (const a of argv.slice(1))
      if (!a.startsWith('-')) {
        names.add(name(a));
        break;
      }
  return [...names].filter((n) => n !== '' && !RUNNERS.test(n));
}

/** The names a running process runs as; null when its command line cannot be read. */
export function namesOfProcess(pid: number): string[] | null {
  if (hasProc()) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      let exe: string | undefined;
      try {
        exe = readlinkSync(`/proc/${pid}/exe`);
      } catch {
        /* Another user's, or gone. */
      }
      return argv.length || exe ? programNames(argv, exe) : null;
    } catch {
      return null;
    }
  }
  try {
    const args = execFileSync('ps', ['-ww', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8', timeout: TOOL_TIMEOUT_MS }).trim();
    return args ? programNames(args.split(/\s+/)) : null;
  } catch {
    return null;
  }
}

/**
 * Every process of this user whose current folder is `folder` or below it, with the names it
 * runs as; null when the process table cannot be read. A process whose folder cannot be read
 * (another user's) is left out: it is not this user's agent.
 */
export function processesInFolder(folder: string): FolderProcess[] | null {
  const inside = (cwd: string) => cwd === folder || cwd.startsWith(folder.endsWith(sep) ? folder : folder + sep);
  const pids: number[] = [];
  if (hasProc()) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (inside(readlinkSync(`/proc/${name}/cwd`))) pids.push(Number(name));
      } catch {
        // Another user's, or gone.
      }
    }
  } else {
    try {
      // -d cwd: each process's current folder, one "p<pid>" then "n<path>" pair per process.
      const uid = String(process.getuid?.() ?? '');
      const out = execFileSync('lsof', ['-n', '-P', '-a', '-d', 'cwd', ...(uid ? ['-u', uid] : []), '-Fpn'], {
        encoding: 'utf8',
        timeout: SCAN_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let pid = 0;
      for (const line of out.split('\n')) {
        if (line.startsWith('p')) pid = Number(line.slice(1));
        else if (line.startsWith('n') && inside(line.slice(1))) pids.push(pid);
      }
    } catch {
      return null;
    }
  }
  return pids.map((pid) => ({ pid, names: namesOfProcess(pid) ?? [] }));
}
