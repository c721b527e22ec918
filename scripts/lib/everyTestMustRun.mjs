// The suite's one definition of "CI is set": test/helpers/required.ts, vitest.config.mts and
// scripts/setup.mjs all read it from here, so CI="", "0" or "false" means off everywhere.

/** Whether every test must run here: CI set to anything but empty, "0" or "false". */
export function everyTestMustRun(env = process.env) {
  return !['', '0', 'false'].includes((env.CI ?? '').trim().toLowerCase());
}
