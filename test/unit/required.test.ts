// Where every test must run (CI set), a missing dependency is a failure with its reason; elsewhere
// it is the reason to skip with (test/helpers/required.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { everyTestMustRun, skipUnlessRequired } from '../helpers/required';

const saved = process.env.CI;
afterEach(() => {
  if (saved === undefined) delete process.env.CI;
  else process.env.CI = saved;
});

describe('skipUnlessRequired', () => {
  it('outside CI: the reason to skip with, or null when nothing is missing', () => {
    for (const off of [undefined, '', '0', 'false', 'FALSE']) {
      if (off === undefined) delete process.env.CI;
      else process.env.CI = off;
      expect(everyTestMustRun()).toBe(false);
      expect(skipUnlessRequired('Xvfb is not installed')).toBe('Xvfb is not installed');
      expect(skipUnlessRequired(null)).toBeNull();
    }
  });

  it('with CI set: throws the reason, and lets a test with nothing missing run', () => {
    for (const on of ['true', '1', 'yes']) {
      process.env.CI = on;
      expect(everyTestMustRun()).toBe(true);
      expect(() => skipUnlessRequired('no C compiler (cc: spawn cc ENOENT)')).toThrow(
        'CI is set, so this test must run here, but it cannot: no C compiler (cc: spawn cc ENOENT)',
      );
      expect(skipUnlessRequired(null)).toBeNull();
    }
  });
});
