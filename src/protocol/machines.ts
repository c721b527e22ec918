// Machines: saved SSH destinations whose session hosts the local host reaches as a hub. What
// ~/.termio/config/machines.json holds (read leniently: a bad entry is reported by name and the
// rest kept), what a machine's state is, and the `machines.*` requests of the host's client
// protocol. Pure: zod schemas and text in, values out.
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from 'zod';

/** A name is typed on command lines and shown on a sidebar header: short, no spaces or quoting. */
export const MACHINE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
/** An ssh destination is `[user@]host` or an alias of ~/.ssh/config; 255 is DNS's limit. */
const MAX_TARGET_CHARS = 255;
/** What a destination is made of: a user, a host name, an IPv4 or [IPv6] address with a %zone,
 *  an alias. Nothing a shell or ssh's own %-expansion into a ProxyCommand would act on ($, `, ;,
 *  quotes, spaces): newer ssh refuses those itself, older ones and user ProxyCommands do not. */
const TARGET_PATTERN = /^[A-Za-z0-9._@:%[\]-]+$/;
/** A path (an identity file) or a command line (the remote command): PATH_MAX. */
const MAX_TEXT_CHARS = 4096;
/** `-o` options: a ProxyJump, a known-hosts file, a timeout or two; 32 is far past any real list. */
const MAX_SSH_OPTIONS = 32;

export const MachineNameSchema = z.string().regex(MACHINE_NAME_PATTERN, {
  message: 'must be 1-32 letters, digits, dots, dashes or underscores, starting with a letter or digit',
});

export const MachineEntrySchema = z.strictObject({
  target: z
    .string()
    .min(1)
    .max(MAX_TARGET_CHARS)
    .refine((t) => !t.startsWith('-') && TARGET_PATTERN.test(t), {
      message: "must be [user@]host or an ssh alias: letters, digits and . _ - @ : % [ ] only, not starting with '-'",
    })
    .describe('[user@]host, or a Host of your ~/.ssh/config'),
  port: z.number().int().min(1).max(65_535).optional(),
  identity: z.string().min(1).max(MAX_TEXT_CHARS).optional().describe('a private key file (ssh -i)'),
  sshOptions: z
    .array(
      z
        .string()
        .min(1)
        .max(MAX_TEXT_CHARS)
        .refine((o) => o.includes('='), { message: 'must be KEY=VALUE, as ssh -o takes it' }),
    )
    .max(MAX_SSH_OPTIONS)
    .optional()
    .describe('ssh -o options, each KEY=VALUE'),
  remoteCommand: z.string().min(1).max(MAX_TEXT_CHARS).optional().describe('run there instead of `termio host --stdio`'),
});
export type MachineEntry = z.infer<typeof MachineEntrySchema>;
export type Machine = MachineEntry & { name: string };

export interface MachinesLoad {
  machines: Machine[];
  /** One line per problem: `machines.json: gpu: port: expected number, got "x"; this machine is skipped`. */
  errors: string[];
}

/** The most machines the hub keeps: each costs an ssh connection, and a list past this is a
 *  mistake or an attack (thousands of ssh started at once), not a set of computers someone uses. */
export const MAX_MACHINES = 64;

/** Reads machines.json text; never throws. A bad entry is skipped and reported, the others kept. */
export function parseMachines(text: string, label = 'machines.json'): MachinesLoad {
  const errors: string[] = [];
  const parseErrors: ParseError[] = [];
  const raw: unknown = text.trim() === '' ? {} : parse(text, parseErrors, { allowTrailingComma: true });
  for (const e of parseErrors.slice(0, 5)) {
    const line = text.slice(0, e.offset).split('\n').length;
    errors.push(`${label}: line ${line}: ${printParseErrorCode(e.error)} (the rest was read as far as possible)`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(`${label}: expected an object with "machines", got ${Array.isArray(raw) ? 'an array' : String(raw)}; no machines`);
    return { machines: [], errors };
  }
  const list = (raw as { machines?: unknown }).machines ?? {};
  if (list === null || typeof list !== 'object' || Array.isArray(list)) {
    errors.push(`${label}: "machines" must be an object of name → machine; no machines`);
    return { machines: [], errors };
  }
  const machines: Machine[] = [];
  for (const [name, value] of Object.entries(list as Record<string, unknown>)) {
    if (machines.length >= MAX_MACHINES) {
      errors.push(`${label}: holds more than ${MAX_MACHINES} machines; "${name.slice(0, 40)}" and every machine after it are skipped`);
      break;
    }
    const n = MachineNameSchema.safeParse(name);
    if (!n.success) {
      errors.push(`${label}: "${name.slice(0, 40)}": the name ${n.error.issues[0]!.message}; this machine is skipped`);
      continue;
    }
    const e = MachineEntrySchema.safeParse(value);
    if (!e.success) {
      const i = e.error.issues[0]!;
      errors.push(`${label}: ${name}: ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message.replace(/^Invalid input: /, '')}; this machine is skipped`);
      continue;
    }
    machines.push({ name, ...e.data });
  }
  return { machines, errors };
}

/**
 * Where a machine's connection stands. `unreachable`, `versionMismatch` and `noTermio` say why
 * (ssh's own words, or the remote's version) and what to do; each retries on its own.
 * `sameMachine`: its host is one the hub already reaches by another saved machine (`sameAs`), or
 * the hub's own host; it is not connected a second time.
 */
export type MachineState = 'connecting' | 'connected' | 'reconnecting' | 'unreachable' | 'versionMismatch' | 'noTermio' | 'sameMachine';

/** A host id (the hello's `hostId`): a UUID, or any short token of letters, digits and dashes. */
export const HOST_ID_PATTERN = /^[A-Za-z0-9-]{8,64}$/;

export interface MachineInfo extends Machine {
  state: MachineState;
  /** Why it is not connected, with what to do; null when connected. */
  why: string | null;
  /** The remote's Termio version and protocol, once its host said hello (or refused ours). */
  remoteVersion: string | null;
  remoteProtocol: number | null;
  /** The host id its host said in the hello (null: not connected yet, or a host that says none). */
  hostId: string | null;
  /** State sameMachine: the saved machine that reaches the same host, or null for this one's own. */
  sameAs: string | null;
  /** Sessions the machine's host runs (the last known count while it is away). */
  sessions: number;
  /** Epoch ms of the next connection attempt, while waiting to retry; else null. */
  retryAt: number | null;
  /** Epoch ms the state began. */
  since: number;
}

export const MachineParamsSchemas = {
  'machines.list': z.strictObject({}),
  'machines.add': MachineEntrySchema.extend({ name: MachineNameSchema }),
  'machines.remove': z.strictObject({ name: MachineNameSchema }),
  /** Connects now instead of at the next retry (after an install, or when the network is back). */
  'machines.retry': z.strictObject({ name: MachineNameSchema }),
  /** From the hub's SSH_ASKPASS helper: what ssh asks (a passphrase, a code), for the app to ask
   *  the user; `token` proves the helper runs for one of this host's connections. */
  'machines.ask': z.strictObject({ token: z.string().min(16).max(128), prompt: z.string().max(2000) }),
  /** From the app: the user's answer to an `askpass` event (null: cancelled). Never stored. */
  'machines.answerAsk': z.strictObject({ id: z.string().min(1).max(64), answer: z.string().max(4096).nullable() }),
};

export interface MachineResults {
  'machines.list': { machines: MachineInfo[]; errors: string[] };
  /** notice: what the user should know about the change (an unreadable file moved aside). */
  'machines.add': { machine: MachineInfo; notice?: string };
  'machines.remove': Record<string, never>;
  'machines.retry': Record<string, never>;
  'machines.ask': { answer: string };
  /** answered false: the question was over already (answered elsewhere, timed out, ssh gone). */
  'machines.answerAsk': { answered: boolean };
}

/** Waits before each reconnection attempt: the first within a second, doubling, capped at 30 s. */
export function reconnectDelayMs(attempt: number): number {
  /** Half a second: a blip (ssh killed, Wi-Fi roaming) is over before anyone looks. */
  const FIRST_MS = 500;
  /** 30 s: a machine that is off costs one ssh start every half minute, and comes back soon after it does. */
  const CAP_MS = 30_000;
  return Math.min(CAP_MS, FIRST_MS * 2 ** Math.max(0, attempt));
}
