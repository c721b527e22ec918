// The control verbs scripts and agents drive sessions with: send (and wait for the turn it
// starts), spawn with a first prompt, run one command, wait, and notify. Each takes its validated
// arguments and answers an outcome; the control server only routes requests here and lends the
// connection (a Holder) for the ones that wait.
import type { ControlArgs, Outcome } from '../../../protocol/control';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import { MAX_PENDING_INPUT_BYTES } from '../../../terminal/node';
import type { Logger } from '../../services/log';
import type { ParentNotices } from '../notify/parentNotices';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';
import type { SessionWaits } from '../sessions/sessionWaits';

/** A run tab's default title: the command line, cut where a sidebar row has long stopped showing it. */
const RUN_LABEL_CHARS = 120;

/** What a waiting verb needs from the connection that asked: keep it open, and know when it goes. */
export interface Holder {
  hold<T>(work: Promise<T>): Promise<T>;
  signal: AbortSignal;
}

export interface NotifyRequest {
  sessionId: string | null;
  title?: string;
  text: string;
}

export interface DriveVerbsOptions {
  registry: SessionRegistry;
  waits: SessionWaits;
  /** Where a spawn with notifyParent is registered; absent (a host that tells no parents): refused. */
  notices?: ParentNotices;
  logger: Logger;
  describe: (r: SessionRecord) => SessionInfo;
  /** Shows a native notification that focuses `sessionId` when clicked. Absent: notify is refused. */
  onNotify?: (n: NotifyRequest) => Promise<void> | void;
}

export class DriveVerbs {
  constructor(private readonly opts: DriveVerbsOptions) {}

  /** `sessions.send`: types the text (and Return); with wait, answers once the turn it started has ended. */
  async send(args: ControlArgs<'sessions.send'>, holder: Holder): Promise<Outcome> {
    const { registry, waits } = this.opts;
    const found = registry.find(args.id);
    if (!found.ok) return found;
    const { record } = found;
    const s = record.session;
    if (s.exited) return { ok: false, code: 'sessionExited', message: `session ${record.id} has exited (code ${s.exited.exitCode}); nothing reads its input` };
    const mark = s.outputMark;
    // Typed into: whatever it waited for has its answer (the attention queue). Before the typing,
    // so that a question the input itself brings on is not taken off with it.
    registry.handled(record.id);
    waits.noteInput(record.id);
    // Held: waiting for the echo must not count as a silent connection.
    const typed = await holder.hold(waits.typeAndEnter(s, args.text, args.enter === true));
    if (!typed.taken) {
      const mib = (s.pendingInput / (1024 * 1024)).toFixed(1);
      this.opts.logger.warn('control: input refused, the program is not reading', { id: record.id, pending: s.pendingInput });
      return {
        ok: false,
        code: 'busy',
        message: `session ${record.id} has not read the input it was sent (${mib} MiB waiting, limit ${MAX_PENDING_INPUT_BYTES / (1024 * 1024)} MiB); nothing was typed`,
      };
    }
    if (typed.unechoed) {
      // Pressing Return into what does not show the text would answer whatever it shows instead.
      const asks = record.state === 'attention' ? ` It needs you (${record.stateWhy}): read its question with \`termio sessions question ${record.id}\`.` : '';
      this.opts.logger.warn('control: the program did not show the text; Return not pressed', { id: record.id, state: record.state });
      return {
        ok: false,
        code: 'notReady',
        message: `session ${record.id} showed nothing of the text it was pasted, so Return was not pressed: it is not at its prompt (a dialog may be up, or it is busy); the text may still be read later, and once it shows, \`termio sessions send ${record.id} --enter\` presses Return.${asks}`,
      };
    }
    if (!args.wait) return { ok: true, result: { id: record.id, mark } };
    const wait = await holder.hold(waits.wait(record.id, 'turn', args.wait.timeoutMs, { mark, signal: holder.signal }));
    return { ok: true, result: { id: record.id, wait } };
  }

  /** `sessions.spawn`: an agent or a shell, its first prompt typed once it is ready; with wait, answers once that turn (or readiness) is reached. */
  async spawn(args: ControlArgs<'sessions.spawn'>, holder: Holder): Promise<Outcome> {
    const { registry, waits, logger } = this.opts;
    const { agent, cwd, bypass, title, prompt, wait } = args;
    const parent = this.parentOf(args.parent);
    if (args.notifyParent && (!parent.parentId || !this.opts.notices)) {
      const why = !this.opts.notices
        ? 'this host tells no parents'
        : args.parent === undefined
          ? 'no parent was named (it is the session the spawn is asked from)'
          : `no open session matches '${args.parent}'`;
      return { ok: false, code: 'badRequest', message: `sessions.spawn: notifyParent: ${why}` };
    }
    const spawned = await registry.spawn({
      agent,
      cwd,
      bypass,
      title,
      worktree: args.worktree ? { ...args.worktree, prompt } : undefined,
      ...parent,
    });
    if (!spawned.ok) return spawned;
    if (args.notifyParent && parent.parentId) this.opts.notices?.watch(spawned.record, parent.parentId);
    sizeUntilAttached(spawned.record, args);
    const id = spawned.record.id;
    const mark = spawned.record.session.outputMark;
    if (prompt !== undefined) {
      waits.deliverPrompt(id, prompt).then(
        (typed) => typed || logger.warn('control: the agent never became ready, or never showed its first prompt; the prompt was not submitted', { id }),
        (err: unknown) => logger.error('control: delivering a first prompt failed', { id, error: String(err) }),
      );
    }
    const result = { id, session: this.opts.describe(spawned.record) };
    if (!wait) return { ok: true, result };
    const settled = await holder.hold(waits.wait(id, prompt !== undefined ? 'turn' : 'ready', wait.timeoutMs, { mark, signal: holder.signal }));
    return { ok: true, result: { ...result, wait: settled } };
  }

  /** `sessions.run`: one command as is, in a tab that stays after it exits; with wait, answers once it has. */
  async run(args: ControlArgs<'sessions.run'>, holder: Holder): Promise<Outcome> {
    const { argv, cwd, title, wait } = args;
    // Untitled, the tab shows the command line: "Terminal" would say nothing about it.
    const label = title ?? argv.join(' ').slice(0, RUN_LABEL_CHARS);
    const spawned = await this.opts.registry.spawn({
      argv,
      cwd,
      title: label,
      worktree: args.worktree ? { ...args.worktree, prompt: argv.join(' ') } : undefined,
      ...this.parentOf(args.parent),
    });
    if (!spawned.ok) return spawned;
    sizeUntilAttached(spawned.record, args);
    const id = spawned.record.id;
    const result = { id, session: this.opts.describe(spawned.record) };
    if (!wait) return { ok: true, result };
    const settled = await holder.hold(this.opts.waits.wait(id, 'exit', wait.timeoutMs, { mark: 0, signal: holder.signal }));
    return { ok: true, result: { ...result, wait: settled } };
  }

  /** `sessions.wait`: answers once the session reaches the state, needs the user, closes, or the time is up. */
  async wait(args: ControlArgs<'sessions.wait'>, holder: Holder): Promise<Outcome> {
    const found = this.opts.registry.find(args.id);
    if (!found.ok) return found;
    // Waits last as long as the work does: the log says which are in progress (and which came back with a new host).
    this.opts.logger.info('control: waiting', { id: found.record.id, until: args.until ?? 'done', timeoutMs: args.timeoutMs });
    const mark = args.since === 'start' ? 0 : args.since;
    const result = await holder.hold(this.opts.waits.wait(found.record.id, args.until ?? 'done', args.timeoutMs, { mark, signal: holder.signal }));
    return { ok: true, result };
  }

  /** `app.notify`: a notification that focuses the asking session when clicked. */
  async notify(args: ControlArgs<'app.notify'>): Promise<Outcome> {
    // A session closed meanwhile (or from another Termio) leaves the notification with nothing to focus, not unsent.
    const found = args.session !== undefined ? this.opts.registry.find(args.session) : null;
    const sessionId = found?.ok ? found.record.id : null;
    if (!this.opts.onNotify) return { ok: false, code: 'internal', message: 'this host shows no notifications' };
    await this.opts.onNotify({ sessionId, text: args.text, title: args.title });
    return { ok: true, result: { shown: true } };
  }

  /** The asking session as a spawn's parent; an id that is not (or no longer) open is no parent. */
  private parentOf(ref: string | undefined): { parentId?: string } {
    if (ref === undefined) return {};
    const found = this.opts.registry.find(ref);
    return found.ok ? { parentId: found.record.id } : {};
  }
}

/** A size asked for at spawn holds until a view attaches (a view then sets the size it shows). */
function sizeUntilAttached(record: SessionRecord, size: { cols?: number | undefined; rows?: number | undefined }): void {
  const s = record.session;
  if (size.cols || size.rows) s.resize(size.cols ?? s.cols, size.rows ?? s.rows);
}
