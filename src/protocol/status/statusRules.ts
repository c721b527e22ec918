// Regex rules over text: ATP's `titleStatus` (the OSC 0/2 title) and `status` (the visible
// screen). Compiles a manifest's `{ state: [regex, …] }` once and classifies text with
// "attention beats working": when rules of several states match, the most urgent one wins.
// A failed turn is read by the manifest's `failureScreen` instead (statusEngine.ts).
// Patterns run in linear time on clipped text (rulePattern.ts): the program controls that text.
import { compileRulePattern, type RulePattern } from './rulePattern';
import { SESSION_STATES, STATE_PRIORITY, type SessionState } from './sessionState';

/** The manifest form: per state, regex sources. Unknown states are reported, not thrown. */
export type StatusRulesInput = Partial<Record<string, readonly string[]>>;

export interface CompiledRule {
  state: SessionState;
  source: string;
  pattern: RulePattern;
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
  for (const [state, sources] of Object.entries(input)) {
    if (!(SESSION_STATES as readonly string[]).includes(state)) {
      errors.push(`${what}: unknown state '${state}' (expected one of ${SESSION_STATES.join(', ')})`);
      continue;
    }
    for (const source of sources ?? []) {
      try {
        rules.push({ state: state as SessionState, source, pattern: compileRulePattern(source) });
      } catch (err) {
        errors.push(`${what}.${state}: bad regex ${JSON.stringify(source)}: ${(err as Error).message}`);
      }
    }
  }
  rules.sort((a, b) => STATE_PRIORITY.indexOf(a.state) - STATE_PRIORITY.indexOf(b.state));
  return { rules, errors };
}

export interface Classification {
  state: SessionState;
  rule: string;
}

/** The most urgent state whose rule matches `text`, or null when none does. */
export function classifyText(compiled: CompiledRules, text: string): Classification | null {
  // Rules are sorted most urgent first, so the first match is the answer.
  for (const rule of compiled.rules) {
    if (rule.pattern.test(text)) return { state: rule.state, rule: rule.source };
  }
  return null;
}
