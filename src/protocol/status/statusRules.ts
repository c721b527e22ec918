// Regex rules over text: ATP's `titleStatus` (the OSC 0/2 title) and `status` (the visible
// screen). Compiles a manifest's `{ state: [regex, …], failure: [regex, …] }` once and classifies
// text with "attention beats working": when rules of several states match, the most urgent one
// wins. A `failure` rule is attention that says the turn failed: the text it matched (its first
// capture group, if it has one) is the failure's description, which the status engine classifies
// into a reason as it does a failure hook's payload.
// Patterns run in linear time on clipped text (rulePattern.ts): the program controls that text.
import { compileRulePattern, type RulePattern } from './rulePattern';
import { SESSION_STATES, STATE_PRIORITY, type SessionState } from './sessionState';

/** The manifest form: per state (and `failure`), regex sources. Unknown states are reported, not thrown. */
export type StatusRulesInput = Partial<Record<string, readonly string[]>>;

/** The key of rules whose match means the turn failed (state attention, with a reason). */
export const FAILURE_RULES = 'failure';

export interface CompiledRule {
  state: SessionState;
  source: string;
  pattern: RulePattern;
  /** A failure rule: its match describes the failure. */
  failure?: true;
}

export interface CompiledRules {
  rules: CompiledRule[];
  /** Rules that could not be used (bad regex, unknown state), each naming the value. */
  errors: string[];
}

export function compileStatusRules(input: StatusRulesInput | undefined, what = 'status'): CompiledRules {
  const rules: CompiledRule[] = [];
  const errors: string[] = [];
  if (!input) return { rules, errors };
  for (const [key, sources] of Object.entries(input)) {
    const failure = key === FAILURE_RULES;
    if (!failure && !(SESSION_STATES as readonly string[]).includes(key)) {
      errors.push(`${what}: unknown state '${key}' (expected one of ${SESSION_STATES.join(', ')}, or ${FAILURE_RULES})`);
      continue;
    }
    const state: SessionState = failure ? 'attention' : (key as SessionState);
    for (const source of sources ?? []) {
      try {
        rules.push({ state, source, pattern: compileRulePattern(source), ...(failure ? { failure: true as const } : {}) });
      } catch (err) {
        errors.push(`${what}.${key}: bad regex ${JSON.stringify(source)}: ${(err as Error).message}`);
      }
    }
  }
  // A failure is the most urgent attention: it says why the agent stopped.
  const rank = (r: CompiledRule) => STATE_PRIORITY.indexOf(r.state) * 2 + (r.failure ? 0 : 1);
  rules.sort((a, b) => rank(a) - rank(b));
  return { rules, errors };
}

export interface Classification {
  state: SessionState;
  rule: string;
  /** A failure rule matched: the text that describes the failure. */
  failureText?: string;
}

/** The most urgent state whose rule matches `text`, or null when none does. */
export function classifyText(compiled: CompiledRules, text: string): Classification | null {
  // Rules are sorted most urgent first, so the first match is the answer.
  for (const rule of compiled.rules) {
    if (!rule.failure) {
      if (rule.pattern.test(text)) return { state: rule.state, rule: rule.source };
      continue;
    }
    const found = rule.pattern.find(text);
    if (found !== null) return { state: rule.state, rule: rule.source, failureText: found };
  }
  return null;
}
