// `termio sessions question ID` and `termio sessions answer ID CHOICE [--force]`: the question a
// session that needs you asks, with its numbered choices, and an answer that is refused when the
// question changed since it was read. Joined into `termio sessions` by sessions.ts.
import type { QuestionInfo } from '../../protocol/control';
import { ExitCode, type CliIo } from './cliIo';
import { printOk } from './output';
import { commonOptions as common, type Call, type Parsed } from './sessionsTypes';

export const questionSpecs = {
  question: {
    usage: 'termio sessions question ID [--json]',
    summary: 'print the question the session asks while it needs you, with its numbered choices',
    details: 'Reading it remembers it: `sessions answer` then answers this question and no other. Exit 1 when it asks nothing.',
    options: common,
    positionals: ['ID'],
  },
  answer: {
    usage: 'termio sessions answer ID CHOICE [--force] [--json]',
    summary: "answer the session's question: CHOICE is a number, a label (or its start) or a key",
    details:
      "Sends that choice's keys (again, up to four times, while the agent has not taken them). Refused\n" +
      '(code questionChanged) when the question is not the one `sessions question` last printed, or was\n' +
      'never read; --force answers whatever is asked now.',
    options: { ...common, force: { type: 'boolean' as const } },
    positionals: ['ID', 'CHOICE'],
  },
};

/** "Run `rm -rf build`?" with its context indented, then "  1. Yes  [1]" per choice. */
export function questionText(q: QuestionInfo): string {
  const lines = [q.text, ...(q.context ? q.context.split('\n').map((l) => `  ${l}`) : []), ''];
  q.choices.forEach((c, i) => {
    lines.push(`${c.highlighted ? '❯' : ' '} ${i + 1}. ${c.label}${c.description ? ` — ${c.description}` : ''}   [${c.keys.join(' ')}]`);
  });
  if (q.answered) lines.push('', `answered: ${q.answered.label}`);
  return `${lines.join('\n')}\n`;
}

export function questionHandlers(call: Call): Record<keyof typeof questionSpecs, (p: Parsed, ctx: { io: CliIo; json: boolean }) => Promise<number>> {
  return {
    async question(p, ctx) {
      const r = await call(ctx, 'sessions.question', { id: p.positionals[0] ?? '' });
      if (!r.ok) return r.code;
      if (ctx.json) printOk(ctx.io, r.result);
      else if (r.result.question) ctx.io.out(questionText(r.result.question));
      else ctx.io.err(`termio: session ${r.result.id} asks no question now\n`);
      return r.result.question ? ExitCode.ok : ExitCode.failed;
    },
    async answer(p, ctx) {
      const r = await call(ctx, 'sessions.answer', { id: p.positionals[0] ?? '', choice: p.positionals[1] ?? '', force: p.values.force ? true : undefined });
      if (!r.ok) return r.code;
      if (ctx.json) printOk(ctx.io, r.result);
      else ctx.io.out(`answered: ${r.result.choice}\n`);
      return ExitCode.ok;
    },
  };
}
