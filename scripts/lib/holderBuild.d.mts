/** Argument lists for `cc`, tried in order until one succeeds (see holderBuild.mjs). */
export function holderCompileAttempts(platform: string, sources: string[], output: string): string[][];
