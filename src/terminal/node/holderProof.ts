// Whether the process ids a holder's hello names are really that holder's. The hello is what a
// socket says, and anything running as the user can listen on a holder socket a previous host
// left: the host may only end processes it can prove belong to the session. Node gives no peer
// credentials for a Unix socket, so the proof comes from the system's process table instead.
//
// On Linux (/proc): the named holder has the listening socket at the path open, and the named
// agent is its child (the holder forks it). Elsewhere (macOS) only the second is checked, with
// `ps`: a forger may then still name itself and a child of its own, which it could end anyway.
// The system is a parameter so that the macOS branch is tested on Linux too (its `ps` takes the
// same options).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Why the hello's pids cannot be trusted, or null when they are the holder's and its agent's. */
export function holderPidsProblem(
  socketPath: string,
  holderPid: number,
  agentPid: number,
  agentExited: boolean,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (!Number.isSafeInteger(holderPid) || holderPid <= 1) return `its hello names holder pid ${holderPid}`;
  if (platform === 'linux' && !listensOn(holderPid, socketPath))
    return `process ${holderPid}, which its hello names as the holder, does not listen on ${socketPath}`;
  // An agent that exited was reaped by its holder: its pid names nothing to check (or to end).
  if (agentExited) return null;
  const parent = parentOf(agentPid, platform);
  return parent === holderPid ? null : `process ${agentPid}, which its hello names as the agent, is not a child of holder ${holderPid}`;
}

/** The parent of a process, or null when it is gone (or cannot be read). */
function parentOf(pid: number, platform: NodeJS.Platform): number | null {
  if (!Number.isSafeInteger(pid) || pid <= 1) return null;
  if (platform === 'linux') {
    try {
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return null;
    }
  }
  const r = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return r.status === 0 && Number.isSafeInteger(n) ? n : null;
}

/** Linux: whether `pid` holds open the listening Unix socket bound at `path`. */
function listensOn(pid: number, path: string): boolean {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return false;
  }
  // Num RefCount Protocol Flags Type St Inode Path; flag 0x10000 marks a listening socket.
  const inodes = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && (parseInt(f[3]!, 16) & 0x10000) !== 0 && f.slice(7).join(' ') === path) inodes.add(`socket:[${f[6]}]`);
  }
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
