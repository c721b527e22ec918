// The companion's bad-token limit, on a clock the test moves: ten wrong tokens in a minute refuse
// the address for a minute; a right token clears a count below the limit; addresses are separate.
import { expect, it } from 'vitest';
import { FailureLimiter, MAX_FAILURES, WINDOW_MS } from '../../../src/app/host/companion/rateLimit';

it('refuses an address after MAX_FAILURES wrong tokens within the window, for the window', () => {
  let now = 1_000_000;
  const l = new FailureLimiter(() => now);
  for (let i = 1; i < MAX_FAILURES; i++) expect(l.fail('10.0.0.2')).toBe(false);
  expect(l.blocked('10.0.0.2')).toBe(false);
  expect(l.fail('10.0.0.2')).toBe(true);
  expect(l.blocked('10.0.0.2')).toBe(true);
  expect(l.blocked('10.0.0.3')).toBe(false);
  // A right token does not lift a refusal.
  l.succeed('10.0.0.2');
  expect(l.blocked('10.0.0.2')).toBe(true);
  now += WINDOW_MS + 1;
  expect(l.blocked('10.0.0.2')).toBe(false);
  // A fresh window: one typo is not a refusal.
  expect(l.fail('10.0.0.2')).toBe(false);
  expect(l.blocked('10.0.0.2')).toBe(false);
});

it('counts failures per window, and a right token clears the count', () => {
  let now = 0;
  const l = new FailureLimiter(() => now);
  for (let i = 1; i < MAX_FAILURES; i++) l.fail('a');
  now += WINDOW_MS + 1;
  // The old window's failures are forgotten.
  for (let i = 1; i < MAX_FAILURES; i++) expect(l.fail('a')).toBe(false);
  l.succeed('a');
  for (let i = 1; i < MAX_FAILURES; i++) expect(l.fail('a')).toBe(false);
  expect(l.blocked('a')).toBe(false);
});
