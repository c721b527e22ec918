// Checkpoints of held sessions: each one's screen and scrollback written to state/checkpoints
// when its output goes quiet, when much has been written since the last one, and now and then
// during endless output, then the holder told which offset the file covers so it can forget the
// bytes before. One checkpoint is taken at a time, so a host with many busy sessions never stalls
// on serializing all of them at once. A new host adopts a session from its file plus the bytes since.
import type { Session } from '../../../terminal/node';
import { captureCheckpoint, type CaptureTiming, type ScreenCheckpoint } from '../../../terminal/node/screenCheckpoint';
import { CHECKPOINT_VERSION, removeCheckpoint, writeCheckpoint, type HeldSessionMeta } from './checkpointFile';
import type { Logger } from '../../services/log';

export const CheckpointTiming = {
  /** Output quiet this long: the screen is settled (a prompt, a finished command), and a
   *  checkpoint now lets a new host rebuild it with nothing to replay. */
  quietMs: 1_000,
  /** This many bytes since the last checkpoint: half the holder's 8 MiB bound, so a busy agent's
   *  stream is always covered by a checkpoint plus bytes the holder still has. */
  volumeBytes: 4 * 1024 * 1024,
  /** ...but not more often than this: serializing a full scrollback takes 4-6 ms of plain text
   *  and ~75 ms of 10,000 lines coloured per character, and a flood must not spend its time on
   *  checkpoints. */
  minIntervalMs: 10_000,
  /** Output that never goes quiet (a counter, a progress bar) is checkpointed this often anyway,
   *  so a replay after a crash stays short. */
  maxIntervalMs: 60_000,
  /** A capture can land in the middle of an escape sequence; it is tried again this much later. */
  retryMs: 50,
  /** Nor is a session checkpointed this soon after someone typed into it: a capture holds the
   *  session's parsing while it serializes (in steps, between which a key is served and the
   *  capture dropped), and what a person waits for after a key is its effect on the screen. With
   *  one long synchronous serialization, a Ctrl-C typed into a flood waited behind it (a
   *  120-260 ms stop, where the rest took 10-40 ms). The holder keeps the bytes meanwhile. Typing
   *  that never pauses puts a checkpoint off until maxIntervalMs since the last one at most. */
  inputQuietMs: 1_000,
} as const;

/** A first checkpoint waits this many retryMs for the session to be registered (5 s). */
const META_TRIES = 100;

/** A capture waits for the emulator to parse what it was given; a session disposed meanwhile
 *  never answers, and the queue must not wait for it forever. A flood's backlog parses in well under this. */
const CAPTURE_DEADLINE_MS = 5_000;

/** A duration for the log, to a tenth of a millisecond. */
const round = (ms: number): number => Math.round(ms * 10) / 10;

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(null), ms);
    void p.then((v) => {
      clearTimeout(t);
      resolve(v);
    });
  });
}

/** Where the last checkpoint written stands. Not its bytes: a busy agent's screen and history
 *  serialized are up to megabytes, and keeping them doubled what each session's history costs
 *  the host; a change of what the file says besides the screen serializes it again. */
type CheckpointMark = Pick<ScreenCheckpoint, 'offset' | 'cols' | 'rows'>;

interface Watched {
  session: Session;
  /** Where the last checkpoint written stands. */
  last: CheckpointMark | null;
  lastAt: number;
  lastOutputAt: number;
  lastInputAt: number;
  metaDirty: boolean;
  /** Tries of a first checkpoint before the session was registered (meta() null). */
  unregistered: number;
  timer: NodeJS.Timeout | null;
  subs: Array<{ dispose(): void }>;
  /** The program ended: one last checkpoint, with its exit status, and then no more. */
  final: boolean;
}

export interface CheckpointerOptions {
  dir: string;
  /** Scrollback lines a checkpoint keeps (the session's own setting). */
  scrollback: () => number;
  /** What a new host needs to carry the session on; null once it is not a session of this host. */
  meta: (id: string) => HeldSessionMeta | null;
  logger: Logger;
  now?: () => number;
}

export class Checkpointer {
  private readonly watched = new Map<string, Watched>();
  /** The session whose file is being written (one at a time), and whether it ended meanwhile. */
  private writing: string | null = null;
  private closedWhileWriting = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private disposed = false;
  /** Checkpoints written (tests and benches). */
  writes = 0;
  /** Checkpoints put off because someone was typing into the session (tests and benches). */
  deferrals = 0;

  constructor(private readonly o: CheckpointerOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Starts checkpointing a held session; the first checkpoint (its identity, an empty screen)
   *  is written at once, so a host lost a moment later can still adopt it. An adopted session
   *  passes the checkpoint it was rebuilt from: that file is on disk already, so nothing is
   *  written until the session changes (50 adopted at once would otherwise spend the host's
   *  start serializing and writing screens it has just read). */
  watch(session: Session, restored?: ScreenCheckpoint): void {
    const holder = session.holder;
    if (!holder || this.watched.has(session.id)) return;
    const last = restored ? { offset: restored.offset, cols: restored.cols, rows: restored.rows } : null;
    const w: Watched = {
      session,
      last,
      lastAt: restored ? this.now() : 0,
      lastOutputAt: 0,
      lastInputAt: -Infinity,
      metaDirty: !restored,
      unregistered: 0,
      timer: null,
      subs: [],
      final: false,
    };
    this.watched.set(session.id, w);
    w.subs.push(
      session.onOutput(() => {
        w.lastOutputAt = this.now();
        this.arm(w, CheckpointTiming.quietMs);
      }),
    );
    w.subs.push(session.onInput(() => (w.lastInputAt = this.now())));
    w.subs.push(holder.onReconnect((why) => this.o.logger.warn('holder: connection lost, and taken back', { id: session.id, why })));
    // A finished command's tab (its output, its exit code) is kept until it is closed: its last
    // screen is saved with the exit status, and a new host shows it as it was.
    w.subs.push(
      session.onExit(() => {
        const lost = holder.lostReason;
        if (lost !== null) this.o.logger.warn('holder: connection lost', { id: session.id, why: lost });
        w.final = w.metaDirty = true;
        void this.checkpoint(session.id);
      }),
    );
    if (!restored) void this.checkpoint(session.id);
  }

  /** Something a checkpoint keeps besides the screen changed (name, state, parent). */
  metaChanged(id: string): void {
    const w = this.watched.get(id);
    if (!w) return;
    w.metaDirty = true;
    this.arm(w, CheckpointTiming.quietMs);
  }

  /** Stops checkpointing; `remove` deletes the file too (the session ended or was closed). */
  forget(id: string, opts: { remove: boolean }): void {
    const w = this.watched.get(id);
    if (w) {
      if (w.timer) clearTimeout(w.timer);
      for (const s of w.subs) s.dispose();
      this.watched.delete(id);
    }
    if (opts.remove) {
      removeCheckpoint(this.o.dir, id);
      if (this.writing === id) this.closedWhileWriting = true;
    }
  }

  private arm(w: Watched, ms: number): void {
    if (w.timer || this.disposed) return;
    w.timer = setTimeout(() => {
      w.timer = null;
      this.due(w);
    }, ms);
  }

  private due(w: Watched): void {
    if (!this.watched.has(w.session.id)) return;
    const now = this.now();
    const since = w.session.streamOffset - (w.last?.offset ?? 0);
    const quietFor = now - w.lastOutputAt;
    const overdue = now - w.lastAt >= CheckpointTiming.maxIntervalMs;
    // None written yet: the identity a new host needs to adopt the session, of a screen that has
    // barely begun, taken at once.
    const first = w.last === null;
    const take =
      first ||
      ((since > 0 || w.metaDirty) &&
        (quietFor >= CheckpointTiming.quietMs || (since >= CheckpointTiming.volumeBytes && now - w.lastAt >= CheckpointTiming.minIntervalMs) || overdue));
    const typingFor = overdue || first ? 0 : this.untilInputPause(w);
    if (take && typingFor > 0) {
      this.deferrals++;
      this.arm(w, typingFor);
    } else if (take) void this.checkpoint(w.session.id, { yieldToInput: !overdue && !first });
    else if (since > 0 || w.metaDirty) this.arm(w, Math.max(CheckpointTiming.retryMs, CheckpointTiming.quietMs - quietFor));
  }

  /** How long until input into the session has paused for inputQuietMs (0: it has). */
  private untilInputPause(w: Watched): number {
    return Math.max(0, CheckpointTiming.inputQuietMs - (this.now() - w.lastInputAt));
  }

  /** Takes and writes a checkpoint of one session now (queued behind any in progress); with
   *  yieldToInput, unless someone types into it before the capture (it is then taken later). */
  checkpoint(id: string, opts: { yieldToInput?: boolean } = {}): Promise<boolean> {
    const run = this.queue.then(() => this.take(id, opts.yieldToInput === true));
    this.queue = run.then(() => undefined);
    return run;
  }

  private async take(id: string, yieldToInput: boolean): Promise<boolean> {
    const w = this.watched.get(id);
    if (!w || (w.session.exited && !w.final)) return false;
    const meta = this.o.meta(id);
    if (!meta) {
      // Watched from its spawn and registered a moment later: the first checkpoint waits for that
      // (a while; output arms it again later anyway).
      if (w.last === null && ++w.unregistered < META_TRIES) this.arm(w, CheckpointTiming.retryMs);
      return false;
    }
    const unchanged = w.last !== null && w.last.offset === w.session.streamOffset;
    // A key can come while the capture waits for the backlog to be parsed: the capture then
    // gives way (the key's echo is what the user waits for) and is taken once typing pauses.
    const typing = () => (yieldToInput ? this.untilInputPause(w) : 0);
    const timing: CaptureTiming = { serializeMs: 0, slices: 0, longestMs: 0 };
    const cp = await withDeadline(captureCheckpoint(w.session, this.o.scrollback(), { giveWay: () => typing() > 0, timing }), CAPTURE_DEADLINE_MS);
    if (!cp) {
      const wait = typing();
      if (wait > 0) this.deferrals++;
      this.arm(w, wait > 0 ? wait : CheckpointTiming.retryMs);
      return false;
    }
    if (!this.watched.has(id)) return false;
    const writeStart = performance.now();
    this.writing = id;
    this.closedWhileWriting = false;
    try {
      const exited = w.final && w.session.exited ? { exited: { ...w.session.exited, pid: w.session.pid } } : {};
      await writeCheckpoint(this.o.dir, { version: CHECKPOINT_VERSION, id, savedAt: new Date(this.now()).toISOString(), ...cp, session: meta, ...exited });
    } catch (e) {
      // A full disk: the holder keeps its bytes, and the next checkpoint tries again.
      this.o.logger.warn('checkpoint: write failed', { id, error: (e as Error).message });
      this.arm(w, CheckpointTiming.quietMs);
      return false;
    } finally {
      this.writing = null;
    }
    if (this.closedWhileWriting) {
      // The session ended while its file was being written: the file goes again.
      removeCheckpoint(this.o.dir, id);
      return false;
    }
    this.writes++;
    // serializeMs held the host's loop, in `slices` pieces, the longest longestSliceMs; writeMs is
    // the write's wall time, mostly off the loop.
    if (!unchanged)
      this.o.logger.debug('checkpoint written', {
        id,
        offset: cp.offset,
        bytes: cp.screen.length,
        serializeMs: round(timing.serializeMs),
        slices: timing.slices,
        longestSliceMs: round(timing.longestMs),
        writeMs: round(performance.now() - writeStart),
      });
    if (w.final) {
      // The holder is gone with its program; the file stays until the tab is closed.
      this.forget(id, { remove: false });
      return true;
    }
    w.last = { offset: cp.offset, cols: cp.cols, rows: cp.rows };
    w.lastAt = this.now();
    w.metaDirty = false;
    w.session.holder?.checkpoint(cp.offset);
    return true;
  }

  /** A last checkpoint of every held session (a host restart): what the next host starts from. */
  async flushAll(): Promise<void> {
    await Promise.all([...this.watched.keys()].map((id) => this.checkpoint(id)));
  }

  get size(): number {
    return this.watched.size;
  }

  /** Stops every timer; files stay for the next host. */
  dispose(): void {
    this.disposed = true;
    for (const id of [...this.watched.keys()]) this.forget(id, { remove: false });
  }
}
