// `sessions.question` and `sessions.answer` on the control socket: the question a session asks,
// as the host's QuestionBook read it, and an answer checked against the question that was read.
import type { ControlArgs, Outcome } from '../../../protocol/control';
import type { QuestionInfo } from '../../../protocol/sessionInfo';
import type { QuestionBook, SessionQuestion } from '../status/questionBook';
import type { SessionRegistry } from '../sessions/sessionRegistry';

export function questionInfo(q: SessionQuestion): QuestionInfo {
  return {
    id: q.id,
    text: q.text,
    context: q.context,
    source: q.source,
    choices: q.choices.map((c) => ({
      label: c.label,
      description: c.description,
      keys: c.keys,
      highlighted: c.highlighted,
    })),
    askedAt: new Date(q.askedAt).toISOString(),
    answered: q.answered ? { label: q.answered.label, at: new Date(q.answered.at).toISOString() } : null,
  };
}

export class QuestionVerbs {
  constructor(
    private readonly registry: SessionRegistry,
    /** The host's book once its services are up (none before: no session exists then). */
    private readonly book: () => QuestionBook | undefined,
  ) {}

  question(args: ControlArgs<'sessions.question'>): Outcome {
    const found = this.registry.find(args.id);
    if (!found.ok) return found;
    const q = this.book()?.read(found.record.id) ?? null;
    return { ok: true, result: { id: found.record.id, question: q ? questionInfo(q) : null } };
  }

  /** `by` names who answers, for the log (the asking session, or outside Termio). */
  answer(args: ControlArgs<'sessions.answer'>, by: string): Outcome {
    const found = this.registry.find(args.id);
    if (!found.ok) return found;
    const book = this.book();
    if (!book) return { ok: false, code: 'noQuestion', message: `session ${found.record.id} asks no question now` };
    const r = book.answer(found.record, args.choice, args.question ?? book.lastReadId(found.record.id), args.force ?? false, by);
    if (!r.ok) return { ok: false, code: r.code, message: r.message };
    return { ok: true, result: { id: found.record.id, choice: r.choice, keys: r.keys, question: questionInfo(r.question) } };
  }
}
