// Codex runs a hook from ~/.codex/hooks.json only once it is trusted: config.toml holds, per hook,
// `[hooks.state."<hooks.json path>:<event_in_snake_case>:<group index>:<hook index>"]` with
// `trusted_hash = "sha256:<hex>"`. The hash is SHA-256 over a canonical JSON identity of the hook
// (Codex's codex-rs/hooks/src/engine/discovery.rs `command_hook_hash` and codex-rs/config
// fingerprint.rs `version_for_toml`): the event's snake_case name and the hook's matcher group
// holding just this one handler, normalised (timeout defaults to 600 s, async to false), absent
// optional fields dropped, object keys sorted, no whitespace. Pure: the host hashes and writes.
import { isOurCommand } from './hookCommand';
import { markedBlockText, withMarkedBlock, withoutMarkedBlock, type BlockMarkers } from './markedBlock';

/** Codex's default hook timeout in seconds, which its normalised identity always carries. */
export const CODEX_DEFAULT_TIMEOUT_SEC = 600;

/** Events whose matcher Codex ignores (it hashes them without one). */
const MATCHERLESS_EVENTS = new Set(['UserPromptSubmit', 'Stop']);

export const CODEX_TRUST_START = '# >>> termio hook trust: written by `termio hooks install`, removed by `termio hooks uninstall` >>>';
export const CODEX_TRUST_END = '# <<< termio hook trust <<<';
const TRUST_MARKERS: BlockMarkers = { start: CODEX_TRUST_START, end: CODEX_TRUST_END, label: 'termio hook trust' };

export interface CodexTrustEntry {
  /** The hooks.state key Codex looks the hook up by. */
  key: string;
  /** The canonical JSON text whose SHA-256 is the trusted hash. */
  identity: string;
}

/** "UserPromptSubmit" → "user_prompt_submit" (Codex's key label for the event). */
export function codexEventLabel(event: string): string {
  return event
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** JSON with object keys sorted at every level and no whitespace, as Codex canonicalises. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The identity Codex hashes for one command hook. */
export function codexHookIdentity(event: string, matcher: string | undefined, handler: Record<string, unknown>): string {
  const timeout = typeof handler.timeout === 'number' ? Math.max(1, Math.floor(handler.timeout)) : CODEX_DEFAULT_TIMEOUT_SEC;
  const normalized = {
    type: 'command',
    command: handler.command,
    timeout,
    async: handler.async === true,
    ...(typeof handler.statusMessage === 'string' ? { statusMessage: handler.statusMessage } : {}),
  };
  const group = { ...(matcher !== undefined && !MATCHERLESS_EVENTS.has(event) ? { matcher } : {}), hooks: [normalized] };
  return canonicalJson({ event_name: codexEventLabel(event), ...group });
}

/** Our hooks in a Codex hooks.json text, each with the key and identity Codex trusts it by. */
export function codexTrustEntries(hooksJsonPath: string, hooksJsonText: string | null): CodexTrustEntry[] {
  if (hooksJsonText === null) return [];
  let root: unknown;
  try {
    root = JSON.parse(hooksJsonText);
  } catch {
    return [];
  }
  const hooks = (root as { hooks?: unknown } | null)?.hooks;
  if (hooks === null || typeof hooks !== 'object') return [];
  const out: CodexTrustEntry[] = [];
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, gi) => {
      const g = group as { matcher?: unknown; hooks?: unknown };
      if (!Array.isArray(g?.hooks)) return;
      g.hooks.forEach((handler: unknown, hi) => {
        const h = handler as Record<string, unknown>;
        if (h?.type !== 'command' || !isOurCommand(h.command)) return;
        out.push({
          key: `${hooksJsonPath}:${codexEventLabel(event)}:${gi}:${hi}`,
          identity: codexHookIdentity(event, typeof g.matcher === 'string' ? g.matcher : undefined, h),
        });
      });
    });
  }
  return out;
}

/** A TOML basic string (JSON's escapes are a subset TOML accepts). */
const tomlString = (s: string) => JSON.stringify(s);

/** The config text without our trust block (the user's bytes, exactly as they were). */
export function withoutCodexTrust(text: string): string {
  return withoutMarkedBlock(text, TRUST_MARKERS);
}

/** The trusted hashes our block records, by key. */
export function codexTrustRecorded(text: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (text === null) return out;
  const block = markedBlockText(text, TRUST_MARKERS);
  if (block === null) return out;
  for (const m of block.matchAll(/^\[hooks\.state\.("(?:[^"\\]|\\.)*")\]\r?\ntrusted_hash = ("(?:[^"\\]|\\.)*")/gm)) {
    out.set(JSON.parse(m[1]!) as string, JSON.parse(m[2]!) as string);
  }
  return out;
}

/** The config text with our trust block replaced by one for these entries (none: the block removed). */
export function withCodexTrust(text: string | null, entries: readonly { key: string; hash: string }[]): string {
  return withMarkedBlock(
    text,
    TRUST_MARKERS,
    entries.flatMap((e) => [`[hooks.state.${tomlString(e.key)}]`, `trusted_hash = ${tomlString(e.hash)}`]),
  );
}
