// Records Codex's trust in exactly Termio's hook entries, so Codex runs them without its
// "Hooks need review" step: after our entries are written to ~/.codex/hooks.json, the
// config.toml beside it gets one marked block of `[hooks.state."<key>"] trusted_hash = …` tables
// (src/protocol/hooks/codexTrust.ts says what is hashed). The user's own bytes outside that block
// are never touched; when trust cannot be recorded the result says why and the one step to take.
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { codexTrustEntries, codexTrustRecorded, JSON_DIALECTS, withCodexTrust, withoutCodexTrust, type HooksDeclaration } from '../../protocol/hooks';
import type { AgentHookResult } from './hookResult';
import { writeFileAtomic } from './atomicWrite';
import { readTextIfExists } from './textFile';

// smol-toml ships CommonJS beside its ES module, but its types are declared as ESM only.
const { parse: parseToml } = require('smol-toml') as { parse: (text: string) => unknown };

/** What the user does when Termio cannot record the trust itself. */
export const CODEX_TRUST_STEP = "open Codex, type /hooks and trust Termio's hooks (or start Codex with --dangerously-bypass-hook-trust)";

export type CodexTrust =
  { ok: true; configFile: string; action: 'written' | 'removed' | 'unchanged'; trusted: number } | { ok: false; configFile: string; error: string };

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/** The trusted hash each of our entries needs, by hooks.state key. */
function wantedTrust(hooksFile: string): { key: string; hash: string }[] {
  return codexTrustEntries(hooksFile, readTextIfExists(hooksFile)).map((e) => ({ key: e.key, hash: sha256(e.identity) }));
}

/** The user's own hooks.state tables (outside our block), or an error when config.toml does not parse. */
function userStates(text: string | null): Map<string, unknown> | string {
  if (text === null) return new Map();
  try {
    const parsed = parseToml(withoutCodexTrust(text)) as { hooks?: { state?: Record<string, unknown> } };
    return new Map(Object.entries(parsed.hooks?.state ?? {}));
  } catch (e) {
    return `does not parse as TOML (${(e as Error).message.split('\n')[0]})`;
  }
}

/** Brings our trust block in line with our entries in hooks.json (none left: the block goes). */
export function syncCodexTrust(hooksFile: string): CodexTrust {
  const configFile = join(dirname(hooksFile), 'config.toml');
  try {
    const before = readTextIfExists(configFile);
    const states = userStates(before);
    if (typeof states === 'string') return { ok: false, configFile, error: `${configFile} ${states}; trust not recorded` };
    const wanted: { key: string; hash: string }[] = [];
    for (const w of wantedTrust(hooksFile)) {
      const mine = states.get(w.key) as { trusted_hash?: unknown } | undefined;
      if (mine === undefined) wanted.push(w);
      else if (mine.trusted_hash !== w.hash) {
        return { ok: false, configFile, error: `${configFile} already has its own [hooks.state."${w.key}"] for another hook; trust not recorded` };
      }
    }
    const after = withCodexTrust(before, wanted);
    if (after === (before ?? '')) return { ok: true, configFile, action: 'unchanged', trusted: wanted.length };
    try {
      parseToml(after);
    } catch (e) {
      return {
        ok: false,
        configFile,
        error: `${configFile}: the trust tables would make it invalid TOML (${(e as Error).message.split('\n')[0]}); trust not recorded`,
      };
    }
    if (after === '' && before !== null) unlinkSync(configFile);
    else writeFileAtomic(configFile, after);
    return { ok: true, configFile, action: wanted.length ? 'written' : 'removed', trusted: wanted.length };
  } catch (e) {
    return { ok: false, configFile, error: `${configFile}: ${(e as Error).message}; trust not recorded` };
  }
}

/** Which of our hooks.json entries Codex does not trust (by our block or the user's own /hooks review). */
export function untrustedCodexHooks(hooksFile: string): string[] | string {
  const configFile = join(dirname(hooksFile), 'config.toml');
  const text = readTextIfExists(configFile);
  const states = userStates(text);
  if (typeof states === 'string') return `${configFile} ${states}`;
  const ours = codexTrustRecorded(text);
  return wantedTrust(hooksFile)
    .filter((w) => ours.get(w.key) !== w.hash && (states.get(w.key) as { trusted_hash?: unknown } | undefined)?.trusted_hash !== w.hash)
    .map((w) => w.key);
}

/**
 * A hook result for an agent whose dialect gates hooks on trust (Codex), after recording the trust
 * its entries need ('sync': install or uninstall) or only checking it ('check': status). Trust
 * recorded: no note. Not recorded: the note says so and names the one step the user takes.
 */
export function withCodexTrustGate(result: AgentHookResult, hooks: HooksDeclaration, mode: 'sync' | 'check'): AgentHookResult {
  if (JSON_DIALECTS[hooks.dialect]?.trustGate !== 'codex' || hooks.type !== 'json' || !result.file || result.state === 'unparsable' || result.state === 'error')
    return result;
  const { note: _note, ...rest } = result;
  if (mode === 'sync') {
    const t = syncCodexTrust(result.file);
    if (t.ok) return { ...rest, trust: { file: t.configFile, state: result.state === 'absent' ? 'none' : 'recorded' } };
    return {
      ...rest,
      trust: { file: t.configFile, state: 'failed', error: t.error },
      note: `Codex will skip Termio's hooks until they are trusted: ${t.error}. To fix: ${CODEX_TRUST_STEP}`,
    };
  }
  if (result.state === 'absent') return rest;
  const configFile = join(dirname(result.file), 'config.toml');
  const untrusted = untrustedCodexHooks(result.file);
  if (typeof untrusted === 'string')
    return {
      ...rest,
      trust: { file: configFile, state: 'failed', error: untrusted },
      note: `Codex will skip Termio's hooks: ${untrusted}. To fix: ${CODEX_TRUST_STEP}`,
    };
  if (untrusted.length === 0) return { ...rest, trust: { file: configFile, state: 'recorded' } };
  return {
    ...rest,
    trust: { file: configFile, state: 'failed', error: `${untrusted.length} of Termio's hooks are not trusted in ${configFile}` },
    note: `Codex will skip ${untrusted.length} of Termio's hooks until they are trusted. To fix: run \`termio hooks install --agent codex\` again, or ${CODEX_TRUST_STEP}`,
  };
}
