// Whether a command line starts an agent with permission bypass: a word that runs the agent's
// program (its command's name, or any path that is the same file as the command resolved on the
// login shell's PATH), followed somewhere by any spelling the manifest declares to grant bypass
// (permissionBypassFlag and permissionBypassForms), in each spelling an argument parser takes for
// it: "--opt=value" and "--opt value"; "-o value", "-ovalue" and "-o=value"; a short flag among
// others ("-dy" holds "-y"); a value quoted or not ('approval_policy="never"'). Words are looked for
// inside arguments too, split as a shell would, so `sh -c 'claude --dangerously-skip-permissions'`
// counts; a script that adds the flag itself cannot be seen from its command line.
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { splitFlags } from '../../protocol/resumePlan';
import type { CatalogEntry } from './catalog';

export interface AgentBypass {
  id: string;
  /** The manifest's command (a name on PATH or a path). */
  command: string;
  /** The command as the catalog resolved it on the login shell's PATH, when installed. */
  resolved?: string | undefined;
  /** permissionBypassFlag and permissionBypassForms, as written. */
  flags: readonly string[];
}

/** Words of a command line: blanks and shell separators split an argument as a shell would; quotes
 *  only group (a shell joins `a="b"` into one word, a="b" → a=b), so they are dropped. */
const WORD_BREAK = /[\s;&|()<>`]+/;
const QUOTES = /['"]/g;
/** "key = value" as one word, as a config parser reads it ('-c "approval_policy = never"'). */
const SPACED_EQUALS = /\s*=\s*/g;
/** A short option: one dash and one letter or digit. */
const SHORT = /^-[A-Za-z0-9]$/;
/** Short flags run together: "-dy" is "-d -y" to the parsers agents use (yargs, clap, commander). */
const SHORT_RUN = /^-[A-Za-z0-9]{2,}$/;
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

/** Whether the token list occurs among words[from…], a short option's value attached or not. */
function hasFlag(words: readonly string[], from: number, tokens: readonly string[]): boolean {
  const [first, value] = tokens;
  const short = first !== undefined && SHORT.test(first);
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (i + tokens.length <= words.length && tokens.every((t, k) => words[i + k] === t)) return true;
    if (!short) continue;
    // "-y" among other short flags: "-dy".
    if (tokens.length === 1 && SHORT_RUN.test(w) && w.includes(first[1]!)) return true;
    // "-c value" written "-cvalue" or "-c=value".
    if (value !== undefined && (w === first + value || w === `${first}=${value}`) && tokens.slice(2).every((t, k) => words[i + 1 + k] === t)) return true;
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
      .flatMap((a) => a.replace(QUOTES, '').replace(SPACED_EQUALS, '=').split(WORD_BREAK))
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

/** Every catalog agent that declares a way to grant bypass, as findBypassFlag takes them. */
export function bypassAgents(entries: readonly CatalogEntry[]): AgentBypass[] {
  return entries.flatMap((e) => {
    const m = e.manifest;
    const flags = [...(m.permissionBypassFlag ? [m.permissionBypassFlag] : []), ...(m.permissionBypassForms ?? [])];
    return m.command && flags.length > 0 ? [{ id: m.id, command: m.command, resolved: e.resolvedCommand, flags }] : [];
  });
}
