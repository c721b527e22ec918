// Whether a command line starts an agent with its permission-bypass flag: a word that runs the
// agent's program (its command's name, or any path that is the same file as the command resolved
// on the login shell's PATH), followed somewhere by that agent's flag. Words are looked for inside
// arguments too, so `sh -c 'claude --dangerously-skip-permissions'` counts; a script that adds the
// flag itself cannot be seen from its command line.
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { splitFlags } from '../../protocol/resumePlan';

export interface AgentBypass {
  id: string;
  /** The manifest's command (a name on PATH or a path). */
  command: string;
  /** The command as the catalog resolved it on the login shell's PATH, when installed. */
  resolved?: string | undefined;
  /** permissionBypassFlag as written. */
  flag: string;
}

/** Words of a command line: shell separators and quotes split an argument as a shell would. */
const WORD_BREAK = /[\s;&|()<>'"`]+/;
/** A command line longer than this is only searched this far (argv is bounded by the protocol anyway). */
const MAX_WORDS = 4096;

function realpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** Where each flag token list occurs, `--a=b` also written as `--a b`. */
function hasFlag(words: readonly string[], from: number, tokens: readonly string[]): boolean {
  const forms = [tokens, tokens.flatMap((t) => (t.startsWith('--') && t.includes('=') ? [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)] : [t]))];
  for (const form of forms) {
    for (let i = from; i + form.length <= words.length; i++) {
      if (form.every((t, k) => words[i + k] === t)) return true;
    }
  }
  return false;
}

export function findBypassFlag(
  argv: readonly string[],
  agents: readonly AgentBypass[],
  resolve: (command: string) => string | undefined,
): { agent: string; flag: string } | null {
  const words = argv
    .flatMap((a) => a.split(WORD_BREAK))
    .filter((w) => w.length > 0)
    .slice(0, MAX_WORDS);
  const withFlags = agents
    .map((a) => ({ ...a, tokens: splitFlags(a.flag), name: basename(a.command), real: a.resolved ? realpath(a.resolved) : undefined }))
    .filter((a) => a.tokens.length > 0);
  if (withFlags.length === 0) return null;
  const realOf = new Map<string, string | undefined>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith('-')) continue;
    for (const a of withFlags) {
      let runs = basename(w) === a.name;
      if (!runs && a.real) {
        if (!realOf.has(w)) {
          const found = w.includes('/') ? w : resolve(w);
          realOf.set(w, found ? realpath(found) : undefined);
        }
        runs = realOf.get(w) === a.real;
      }
      if (runs && hasFlag(words, i + 1, a.tokens)) return { agent: a.id, flag: a.flag };
    }
  }
  return null;
}
