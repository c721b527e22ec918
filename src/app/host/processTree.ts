// What the host can learn about a session's processes from the OS: the tree below its agent, and
// the files that tree holds open (how discovery ties an agent's record to the session that writes
// it). Linux reads /proc; macOS asks ps and lsof once per question. Where neither answers, the
// answer is null ("cannot tell"), never a guess.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** ps and lsof answer in tens of milliseconds; a second means they hang, and the answer is "cannot tell". */
const TOOL_TIMEOUT_MS = 1_000;

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
    const out = execFileSync('lsof', ['-n', '-P', '-Fn', '-p', pids.join(',')], { encoding: 'utf8', timeout: TOOL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });
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
