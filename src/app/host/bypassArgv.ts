// Whether a command line starts an agent with permission bypass: a word that runs the agent's
// program (its command's name, or any path that is the same file as the command resolved on the
// login shell's PATH), followed somewhere by any spelling the manifest declares to grant bypass
// (permissionBypassFlag and permissionBypassForms; "--opt=value" and "--opt value" alike). Words are looked for inside
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
  /** permissionBypassFlag and permissionBypassForms, as written. */
  flags: readonly string[];
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

/** "--opt=value" as the two words "--opt" "value", so both spellings compare equal. */
function splitOptionValue(words: readonly string[]): string[] {
  return words.flatMap((w) => (w.startsWith('--') && w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w]));
}

/** Whether the token list occurs among words[from…]. */
function hasFlag(words: readonly string[], from: number, tokens: readonly string[]): boolean {
  for (let i = from; i + tokens.length <= words.length; i++) {
    if (tokens.every((t, k) => words[i + k] === t)) return true;
  }
  return false;
}

export function findBypassFlag(
  argv: readonly string[],
  agents: readonly AgentBypass[],
  resolve: (command: string) => string | undefined,
): { agent: string; flag: string } | null {
  const words = splitOptionValue(
    argv
      .flatMap((a) => a.split(WORD_BREAK))
      .filter((w) => w.length > 0)
      .slice(0, MAX_WORDS),
  );
  const withFlags = agents
    .map((a) => ({
      ...a,
      forms: a.flags.map((flag) => ({ flag, tokens: splitOptionValue(splitFlags(flag)) })).filter((f) => f.tokens.length > 0),
      name: basename(a.command),
      real: a.resolved ? realpath(a.resolved) : undefined,
    }))
    .filter((a) => a.forms.length > 0);
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
      if (!runs) continue;
      const form = a.forms.find((f) => hasFlag(words, i + 1, f.tokens));
      if (form) return { agent: a.id, flag: form.flag };
    }
  }
  return null;
}
