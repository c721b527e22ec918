// `termio sessions next [--focus]` and `termio sessions handled ID`: the attention queue
// (src/protocol/attentionQueue.ts) from a script or a key binding. Joined into `termio sessions`
// by sessions.ts.
import { waitingAge, waitingSinceMs } from '../../protocol/attentionQueue';
import type { SessionInfo } from '../../protocol/control';
import { ExitCode, type CliIo } from './cliIo';
import { printOk } from './output';
import { commonOptions as common, type Call, type Parsed } from './sessionsTypes';
import { tilde } from './sessionsText';

export const queueSpecs = {
  next: {
    usage: 'termio sessions next [--focus] [--json]',
    summary: 'print the session waiting longest for you (the head of the attention queue)',
    details:
      'A session joins the queue when it starts to need you and leaves it once handled: its question answered,\n' +
      'something typed into it, or `termio sessions handled ID`. Exit 1 when no session waits.\n' +
      '--focus: bring its tab to the front; when none waits, the session that finished most recently instead\n' +
      '(exit 1 only when there is neither). With --json: {"session": {…}|null, "reason": "waiting"|"done"|"none", "queue": [ids], "focused"}.',
    options: { ...common, focus: { type: 'boolean' as const } },
    positionals: [],
  },
  handled: {
    usage: 'termio sessions handled ID [--json]',
    summary: 'take a waiting session off the attention queue without answering it',
    details: 'It keeps its state (it still shows that it needs you) but `sessions next` and the hotkey skip it, until it asks something new.',
    options: common,
    positionals: ['ID'],
  },
};

/** "3f2a9c1d  claude  waiting 12 min  ~/src/api  fix the tests" */
function sessionLine(s: SessionInfo, reason: 'waiting' | 'done', env: NodeJS.ProcessEnv): string {
  const since = waitingSinceMs(s);
  const age = reason === 'waiting' && since !== null ? waitingAge(Date.now() - since) : 'done';
  return `${s.id}  ${s.agentId ?? 'shell'}  ${age}  ${tilde(s.cwd, env)}${s.title ? `  ${s.title}` : ''}\n`;
}

export function queueHandlers(call: Call): Record<keyof typeof queueSpecs, (p: Parsed, ctx: { io: CliIo; json: boolean }) => Promise<number>> {
  return {
    async next(p, ctx) {
      const focus = p.values.focus === true;
      const r = await call(ctx, 'sessions.next', focus ? { focus } : {});
      if (!r.ok) return r.code;
      const { session, reason } = r.result;
      // Without --focus, "next" is only the queue: a done session is not waiting for you.
      const found = reason === 'waiting' || (focus && reason === 'done');
      if (ctx.json) printOk(ctx.io, r.result);
      else if (session && found) ctx.io.out(sessionLine(session, reason === 'done' ? 'done' : 'waiting', ctx.io.env));
      else ctx.io.err(`termio: no session waits for you${reason === 'done' || !focus ? '' : ', and none is done'}\n`);
      return found ? ExitCode.ok : ExitCode.failed;
    },
    async handled(p, ctx) {
      const r = await call(ctx, 'sessions.handled', { id: p.positionals[0] ?? '' });
      if (!r.ok) return r.code;
      if (ctx.json) printOk(ctx.io, r.result);
      else if (!r.result.wasWaiting) ctx.io.err(`termio: session ${r.result.id} was not waiting in the queue\n`);
      return ExitCode.ok;
    },
  };
}
