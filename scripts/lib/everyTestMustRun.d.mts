/** Whether every test must run here: CI set to anything but empty, "0" or "false" (see everyTestMustRun.mjs). */
export function everyTestMustRun(env?: NodeJS.ProcessEnv): boolean;
