// Where the whole suite is meant to run (CI sets CI, and .ci/run sets it too), a missing
// dependency fails the tests that need it, with the reason; on a developer's machine without it
// those tests skip with that reason. Either way nothing passes quietly without having run.

/** Whether every test must run here: CI set to anything but empty, "0" or "false". */
export function everyTestMustRun(): boolean {
  return !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase());
}

/** The reason to skip (null: nothing is missing); throws it instead where every test must run. */
export function skipUnlessRequired(reason: string | null): string | null {
  if (reason !== null && everyTestMustRun()) throw new Error(`CI is set, so this test must run here, but it cannot: ${reason}`);
  return reason;
}
