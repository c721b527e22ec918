// A wait across a lost host (`termio sessions wait`, and `--wait` on send, spawn and run, which
// wait with a second request once the first has started the work): when the connection ends in
// the middle of a wait (termio-host crashed, was killed, restarted or replaced by an update), the
// session's holder kept its agent running and the next host adopts it, so the wait goes on there,
// on the same session, with the time it had left. The next host is the one the app starts, or one
// started here.
import type { ControlArgs } from '../../protocol/control';
import { ControlClient, REQUEST_TIMEOUT_MS, type Reply } from '../client/controlClient';
import type { Ctx } from './sessionsTypes';

/** Hosts lost during one wait before it gives up: a host that dies again and again is a bug to
 *  report, not to wait out. */
export const MAX_WAIT_RESUMES = 5;

type WaitArgs = ControlArgs<'sessions.wait'>;

/** Asks for the wait; the reply deadline is the wait's own plus the usual margin. */
function ask(ctx: Ctx, args: WaitArgs): Promise<Reply<'sessions.wait'>> {
  return ctx.client.request('sessions.wait', args, REQUEST_TIMEOUT_MS + args.timeoutMs);
}

/**
 * The wait as the next host is asked it. A mark sessions.send gave counts rows of the lost host's
 * screen, which the next one rebuilt from a checkpoint: its lines then begin where the wait
 * begins again. 'start' means the same on every host. A 'turn' the next host knows nothing of
 * (it did not see the input) ends as 'done' would: the session's state came over with it.
 */
function again(args: WaitArgs): WaitArgs {
  const { since, ...rest } = args;
  return since === 'start' ? { ...rest, since } : rest;
}

/**
 * The wait's reply, asked again of the next host each time the connection is lost (at most
 * MAX_WAIT_RESUMES times). `first` is the reply to the first request, made by the caller; the
 * reply returned is the last one, or the loss itself when no host can be reached.
 */
export async function resumeLostWait(
  ctx: Ctx,
  args: WaitArgs,
  first: Reply<'sessions.wait'>,
  startedAt: number,
  now: () => number = Date.now,
): Promise<Reply<'sessions.wait'>> {
  let reply = first;
  for (let n = 1; !reply.ok && reply.lost && n <= MAX_WAIT_RESUMES; n++) {
    ctx.client.close();
    const next = await ControlClient.connectOrStart(ctx.io.env);
    if (!(next instanceof ControlClient))
      return {
        ok: false,
        lost: true,
        error: { code: 'internal', message: `the session host was lost during the wait, and no new one could be reached: ${next.message}` },
      };
    ctx.client = next;
    ctx.io.err(`termio: the session host was lost during the wait; waiting on session ${args.id} with the next one\n`);
    const left = Math.max(0, args.timeoutMs - (now() - startedAt));
    reply = await ask(ctx, { ...again(args), timeoutMs: left });
    if (!reply.ok && reply.error.code === 'noSuchSession') {
      return {
        ok: false,
        error: {
          code: 'noSuchSession',
          message: `the session host was lost during the wait, and the new one does not have session ${args.id} (${reply.error.message}): it ran without a holder, or ended meanwhile`,
        },
      };
    }
  }
  return reply;
}
