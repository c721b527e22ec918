// Where the whole suite is meant to run (CI sets CI, and .ci/run sets it too), a missing
// dependency fails the tests that need it, with the reason; on a developer's machine without it
// those tests skip with that reason. Either way nothing passes quietly without having run.

import { everyTestMustRun } from '../../scripts/lib/everyTestMustRun.mjs';

export { everyTestMustRun };

/** The reason to skip (null: nothing is missing); throws it instead where every test must run. */
export function skipUnlessRequired(reason: string | null): string | null {
  if (reason !== null && everyTestMustRun()) throw new Error(`CI is set, so this test must run here, but it cannot: ${reason}`);
  return reason;
}
