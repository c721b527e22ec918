// What ssh asks while the hub connects a machine — a key's passphrase, a one-time code, a password —
// asked of the user in the app, never stored. The hub runs ssh with SSH_ASKPASS set to a small
// termio helper (bin/termio-askpass) and SSH_ASKPASS_REQUIRE=force; the helper sends the prompt
// to this host's socket (`machines.ask`, with the link's token, so nothing else can pose as ssh),
// the question goes to the subscribed app as an event, and the app's answer (`machines.answerAsk`)
// goes back to the helper's request, which prints it for ssh. With no app attached the ask is
// refused at once and the machine says it needs one; the answer is held only until it is sent.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Emitter } from '../../../protocol/events';
import type { HostError } from '../../../protocol/hostMessages';
import { writeFileAtomic } from '../../services/atomicWrite';

/** How long the user has to answer: long enough to find a phone's code, short enough that a
 *  forgotten prompt does not hold a connection attempt for ever. */
export const ASK_TIMEOUT_MS = 120_000;

export interface AskEvent {
  id: string;
  machine: string;
  prompt: string;
}

type AskAnswer = { ok: true; result: { answer: string } } | { ok: false; error: HostError };

interface Pending {
  ask: AskEvent;
  resolve(a: AskAnswer): void;
  timer: NodeJS.Timeout;
}

export class AskpassBroker {
  private readonly tokens = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();
  private readonly asked = new Emitter<AskEvent>();
  private readonly ended = new Emitter<string>();
  private readonly refused = new Emitter<string>();
  /** A question for the app to show. */
  readonly onAsk = this.asked.event;
  /** A question is over (answered, timed out, or its ssh went away): the app closes its prompt. */
  readonly onDone = this.ended.event;
  /** ssh asked a machine's question while no app was attached (the machine's name). */
  readonly onNoApp = this.refused.event;
  /** Whether an app is attached to ask (set by the host once its app service exists). */
  appAttached: () => boolean = () => false;

  /** The token a machine's helper proves itself with, new for each connection attempt. */
  tokenFor(machine: string): string {
    for (const [t, m] of this.tokens) if (m === machine) this.tokens.delete(t);
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, machine);
    return token;
  }

  /** The helper's request: resolves with the user's answer, or why there is none. */
  ask(token: string, prompt: string): Promise<AskAnswer> {
    const machine = this.tokens.get(token);
    if (!machine) return Promise.resolve({ ok: false, error: { code: 'forbidden', message: 'not a question of a connection this host is making' } });
    if (!this.appAttached()) {
      this.refused.fire(machine);
      return Promise.resolve({ ok: false, error: { code: 'busy', message: `${machine} needs a passphrase or code: open Termio to answer it` } });
    }
    const ask: AskEvent = { id: randomUUID(), machine, prompt };
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => this.finish(ask.id, { ok: false, error: { code: 'busy', message: `nobody answered ${machine}'s question within ${ASK_TIMEOUT_MS / 1000} s` } }),
        ASK_TIMEOUT_MS,
      );
      this.pending.set(ask.id, { ask, resolve, timer });
      this.asked.fire(ask);
    });
  }

  /** The app's answer; null: the user cancelled. False when the question is over already. */
  answer(id: string, answer: string | null): boolean {
    if (!this.pending.has(id)) return false;
    this.finish(id, answer === null ? { ok: false, error: { code: 'busy', message: 'the question was cancelled' } } : { ok: true, result: { answer } });
    return true;
  }

  /** Questions the app shows now (a newly attached app shows them too). */
  open(): AskEvent[] {
    return [...this.pending.values()].map((p) => p.ask);
  }

  /** Is a question of `machine` waiting on the user? (its connection attempt waits too). */
  asking(machine: string): boolean {
    return [...this.pending.values()].some((p) => p.ask.machine === machine);
  }

  /** The machine's ssh ended, or the machine went: its questions are over and its token is void. */
  forget(machine: string): void {
    for (const [t, m] of this.tokens) if (m === machine) this.tokens.delete(t);
    for (const p of [...this.pending.values()])
      if (p.ask.machine === machine) this.finish(p.ask.id, { ok: false, error: { code: 'busy', message: `${machine}'s connection attempt ended` } });
  }

  private finish(id: string, a: AskAnswer): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(a);
    this.ended.fire(id);
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.finish(id, { ok: false, error: { code: 'busy', message: 'this host is stopping' } });
    this.tokens.clear();
    for (const e of [this.asked, this.ended, this.refused]) (e as Emitter<unknown>).dispose();
  }
}

/** The program ssh runs as SSH_ASKPASS: a script in the host's private run folder that runs the
 *  helper with this Node (ssh gives it no arguments but the prompt, and PATH may have no node). */
export function writeAskpassScript(runDir: string, nodePath: string, helper: string): string {
  const file = join(runDir, 'askpass');
  const q = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  // Atomic, like every file Termio writes: an ssh starting meanwhile never runs half a script.
  writeFileAtomic(file, `#!/bin/sh\nexec ${q(nodePath)} ${q(helper)} "$@"\n`, { mode: 0o700, forceMode: true });
  return file;
}
