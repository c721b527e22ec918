// Resume planning (docs/protocol.md, "Resume"): given an agent's manifest, a session's
// bound conversation and the facts the host looked up, decide create / resume / fresh and build
// the exact argv. Exact-or-nothing: never guess, never resume a neighbour. Pure: no I/O.

import type { Manifest, ManifestDiscover, ManifestResume } from './manifestSchema';

/** Pinned family: the CLI accepts a Termio-minted id at launch (the fields manifestParse requires). */
export type PinnedResumeInput = Required<Pick<ManifestResume, 'create' | 'resume' | 'storeRoot' | 'storeMatch'>>;

/** Discovered family: the agent mints the id; Termio finds it in the agent's session store. */
export type DiscoverInput = ManifestDiscover;

/** The part of a manifest resume planning reads (inferred from the manifest schema). */
export type ResumeManifestInput = Pick<Manifest, 'id' | 'command' | 'permissionBypassFlag' | 'resume'>;

export type ResumeFamily = 'pinned' | 'discovered';

/** What planning needs to know about a session (a subset of the persisted session record). */
export interface ResumeSessionInput {
  agentId: string;
  /** The conversation the session is bound to, or null when it never was bound. */
  conversationId: string | null;
  /** How the binding was obtained: 'pinned' (Termio minted it) or 'discovered' (the agent did). */
  family: ResumeFamily | null;
  /** The user's permission-bypass toggle for the session. */
  bypass: boolean;
}

/** Facts only the host can look up; planning never does I/O. */
export interface ResumeFacts {
  /** Pinned family with a bound id: does the agent's store hold a record for it? */
  pinnedRecordExists?: boolean;
  /** A freshly minted id (a UUID), used when a pinned session needs a new conversation. */
  newId?: string;
}

export type ResumeMode = 'create' | 'resume' | 'fresh';

export interface ResumePlan {
  family: ResumeFamily | 'none';
  /** The conversation the launch continues or creates; null for a fresh discovered launch. */
  conversationId: string | null;
  mode: ResumeMode;
  /** command + arguments, one element per argv entry; never joined into a shell string. */
  argv: string[]; // [] = the login shell (a manifest without a command)
  /** One sentence a user can read in `termio sessions list` explaining the choice. */
  why: string;
}

/**
 * Longest conversation id accepted. Real ids are UUIDs (36), `T-<uuid>` (38) or `ses_…` (~30);
 * 200 leaves room for unknown schemes while keeping argv and file names short.
 */
export const MAX_CONVERSATION_ID_LENGTH = 200;

/**
 * Why a conversation id is unsafe to put into an argv or a file name, or null when it is safe.
 * Ids come from agents' files and hook payloads, so they are untrusted: a '/' or '..' could walk
 * out of a store root, a leading '-' could smuggle a flag (e.g. a bypass flag) into the argv.
 * Spaces, quotes and shell characters are harmless because nothing here goes through a shell.
 */
export function checkConversationId(id: unknown): string | null {
  if (typeof id !== 'string') return `expected a string id, got ${id === null ? 'null' : typeof id}`;
  if (id.length === 0) return 'the id is empty';
  if (id.length > MAX_CONVERSATION_ID_LENGTH) return `the id is ${id.length} characters long (at most ${MAX_CONVERSATION_ID_LENGTH})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'the id contains a control character';
  if (id.includes('/') || id.includes('\\')) return `the id ${JSON.stringify(id)} contains a path separator`;
  if (id.includes('..')) return `the id ${JSON.stringify(id)} contains '..'`;
  if (id.startsWith('-')) return `the id ${JSON.stringify(id)} starts with '-' and would read as a flag`;
  return null;
}

/**
 * Which family a manifest's resume block declares (ATP: inferred from the fields present):
 * create/storeRoot/storeMatch → pinned; discover, or a resume template alone (the id then comes
 * only from a hook's conversation id) → discovered; nothing usable → 'none'.
 */
export function resumeFamilyOf(resume: ResumeManifestInput['resume']): ResumeFamily | 'none' {
  if (!resume) return 'none';
  if (resume.discover) return 'discovered';
  if (resume.create !== undefined || resume.storeRoot !== undefined || resume.storeMatch !== undefined) return 'pinned';
  if (resume.resume !== undefined) return 'discovered';
  return 'none';
}

/**
 * Splits a template on whitespace into argv tokens, then substitutes `{id}` inside each token, so
 * an id is always part of exactly one argv element whatever characters it holds.
 * Templates have no quoting: a token cannot contain a space.
 */
export function buildTemplateArgs(template: string, id: string): string[] {
  return template
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => t.split('{id}').join(id));
}

/** Whitespace-split tokens of a flag string such as "--approval-mode=yolo" or "--permission-mode auto". */
export function splitFlags(flags: string | undefined): string[] {
  return (flags ?? '').split(/\s+/).filter((t) => t.length > 0);
}

/** An empty argv means "the login shell" (SpawnOptions.argv omitted): a manifest without a command. */
function launchArgv(manifest: ResumeManifestInput, session: ResumeSessionInput, args: string[]): string[] {
  if (manifest.command === undefined || manifest.command === '') return [];
  const argv = [manifest.command, ...args];
  if (session.bypass) argv.push(...splitFlags(manifest.permissionBypassFlag));
  return argv;
}

function bypassNote(manifest: ResumeManifestInput, session: ResumeSessionInput): string {
  if (!session.bypass) return '';
  return splitFlags(manifest.permissionBypassFlag).length > 0
    ? ' Permission bypass is on.'
    : ' Permission bypass is on but the manifest declares no permissionBypassFlag.';
}

function fresh(manifest: ResumeManifestInput, session: ResumeSessionInput, family: ResumePlan['family'], why: string): ResumePlan {
  return { family, conversationId: null, mode: 'fresh', argv: launchArgv(manifest, session, []), why: why + bypassNote(manifest, session) };
}

/**
 * The launch plan for a session. Rules (exact-or-nothing):
 * - no resume block → fresh;
 * - pinned, no bound id → create under facts.newId;
 * - pinned, bound id minted by Termio: record found → resume; absent → create with the same id;
 * - pinned, bound id the agent minted (bound while the manifest was discovered): found → resume;
 *   absent → create under facts.newId (never create under an id Termio did not mint);
 * - discovered, bound id → resume; no bound id → fresh (the discovery watcher binds later);
 * - discovered, bound id minted by Termio for a pinned launch → fresh (nothing can confirm it);
 * - an unsafe bound id or a template without {id} → fresh, and `why` says so.
 * Missing facts the rules need are a programming error in the host and throw.
 */
export function planResume(manifest: ResumeManifestInput, session: ResumeSessionInput, facts: ResumeFacts = {}): ResumePlan {
  if (manifest.id !== session.agentId) {
    throw new Error(`planResume: session of agent ${JSON.stringify(session.agentId)} planned with manifest ${JSON.stringify(manifest.id)}`);
  }
  const spec = manifest.resume;
  const family = resumeFamilyOf(spec);
  if (!manifest.command) return fresh(manifest, session, 'none', `${manifest.id} launches the login shell; nothing to resume.`);
  if (family === 'none' || !spec) return fresh(manifest, session, 'none', `${manifest.id} declares no resume; launching fresh.`);

  const bound = session.conversationId;
  const unsafe = bound === null ? null : checkConversationId(bound);
  if (unsafe) return fresh(manifest, session, family, `The bound conversation id is unusable (${unsafe}); launching fresh.`);

  return family === 'discovered' ? planDiscovered(manifest, session, spec, bound) : planPinned(manifest, session, spec, bound, facts);
}

/** A manifest's resume block, once it declares one. */
type ResumeSpecInput = NonNullable<ResumeManifestInput['resume']>;

/** A discovered-id agent: resume the bound conversation, or launch fresh (the watcher binds one later). */
function planDiscovered(manifest: ResumeManifestInput, session: ResumeSessionInput, spec: ResumeSpecInput, bound: string | null): ResumePlan {
  const family = 'discovered';
  const template = spec.resume ?? '';
  if (!template.includes('{id}')) return fresh(manifest, session, family, 'resume.resume has no {id}; launching fresh.');
  if (bound === null) return fresh(manifest, session, family, 'No conversation bound yet; launching fresh and watching for its record.');
  if (session.family === 'pinned') {
    return fresh(
      manifest,
      session,
      family,
      `Conversation ${bound} was minted by Termio for a pinned launch and this manifest discovers ids, so it cannot be confirmed; launching fresh.`,
    );
  }
  return {
    family,
    conversationId: bound,
    mode: 'resume',
    argv: launchArgv(manifest, session, buildTemplateArgs(template, bound)),
    why: `Resuming bound conversation ${bound}.${bypassNote(manifest, session)}`,
  };
}

/** A pinned-id agent: resume the bound conversation when its record exists, else create one. */
function planPinned(manifest: ResumeManifestInput, session: ResumeSessionInput, spec: ResumeSpecInput, bound: string | null, facts: ResumeFacts): ResumePlan {
  const family = 'pinned';
  const create = spec.create ?? '';
  const resume = spec.resume ?? '';
  if (!create.includes('{id}') || !resume.includes('{id}')) {
    return fresh(manifest, session, family, `resume.${create.includes('{id}') ? 'resume' : 'create'} has no {id}; launching fresh.`);
  }
  const createNew = (why: string): ResumePlan => {
    const id = facts.newId;
    if (id === undefined) throw new Error('planResume: a pinned create needs facts.newId');
    const bad = checkConversationId(id);
    if (bad) throw new Error(`planResume: facts.newId is unusable: ${bad}`);
    return {
      family,
      conversationId: id,
      mode: 'create',
      argv: launchArgv(manifest, session, buildTemplateArgs(create, id)),
      why: why + bypassNote(manifest, session),
    };
  };
  if (bound === null) return createNew('New conversation under a Termio-minted id.');
  if (facts.pinnedRecordExists === undefined) throw new Error('planResume: a pinned session with a bound id needs facts.pinnedRecordExists');
  if (facts.pinnedRecordExists) {
    return {
      family,
      conversationId: bound,
      mode: 'resume',
      argv: launchArgv(manifest, session, buildTemplateArgs(resume, bound)),
      why: `The agent's store holds conversation ${bound}; resuming it.${bypassNote(manifest, session)}`,
    };
  }
  if (session.family === 'discovered') {
    return createNew(`Conversation ${bound} was discovered, not minted by Termio, and its record is gone; starting a new one.`);
  }
  return {
    family,
    conversationId: bound,
    mode: 'create',
    argv: launchArgv(manifest, session, buildTemplateArgs(create, bound)),
    why: `The agent never wrote conversation ${bound}; creating it under the same id.${bypassNote(manifest, session)}`,
  };
}

/** What `termio sessions list --json` shows about a session's resume. */
export interface ResumeDescription {
  agentId: string;
  /** The family the manifest declares now ('unknown' when the agent's manifest is gone). */
  family: ResumeFamily | 'none' | 'unknown';
  boundId: string | null;
  boundFamily: ResumeFamily | null;
  plan: Pick<ResumePlan, 'mode' | 'argv' | 'why' | 'conversationId'> | null;
  why: string;
}

/**
 * A JSON-ready description of a session's resume for listings. Pass manifest null when the
 * agent's manifest is no longer loaded. Facts as for planResume; when the host cannot provide
 * newId (a listing should not mint ids) the create argv shows the literal `{id}` placeholder.
 */
export function describeResume(session: ResumeSessionInput, manifest: ResumeManifestInput | null, facts: ResumeFacts = {}): ResumeDescription {
  const base = { agentId: session.agentId, boundId: session.conversationId, boundFamily: session.family };
  if (!manifest) return { ...base, family: 'unknown', plan: null, why: `No manifest is loaded for agent ${JSON.stringify(session.agentId)}.` };
  const plan = planResume(manifest, session, { newId: '{id}', pinnedRecordExists: false, ...facts });
  return {
    ...base,
    family: resumeFamilyOf(manifest.resume),
    plan: { mode: plan.mode, argv: plan.argv, why: plan.why, conversationId: plan.conversationId },
    why: plan.why,
  };
}
