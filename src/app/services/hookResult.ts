// What a hook install, uninstall or status check reports for one agent, in its own module so the
// installer and its helpers for vendor gates (codexTrust.ts) and script folders
// (scriptHookFolder.ts) share it without importing each other.
import type { HooksDeclaration } from '../../protocol/hooks';

/** An agent whose manifest declares hooks. */
export interface AgentHooks {
  agentId: string;
  hooks: HooksDeclaration;
}

/** `stale`: our entries are there but run another reporter than this Termio's launcher (a moved
 *  checkout, an old Node, an install from before the launcher); installing again repairs them. */
export type AgentHookState = 'installed' | 'partial' | 'stale' | 'absent' | 'unparsable' | 'error';

export interface AgentHookResult {
  agentId: string;
  /** Absolute path of the config file. */
  file: string;
  state: AgentHookState;
  /** What this call did to the file. */
  action: 'written' | 'removed' | 'unchanged' | 'repaired' | 'none';
  /** Declared events with our entry in the file. */
  events: string[];
  /** Declared events without one. */
  missing: string[];
  error?: string;
  /** A vendor gate that can still silence our hooks (Codex's trust review). */
  note?: string;
  /** Where the original file was saved before our first edit. */
  backup?: string;
  /** For agents that run only hooks they trust (Codex): whether Termio recorded that trust. */
  trust?: { file: string; state: 'recorded' | 'none' | 'failed'; error?: string };
}
