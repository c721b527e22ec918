// How scripts/setup.mjs compiles the session holder (native/termio-holder) on each platform:
// the compiler invocations to try, in order. Linux links it statically first (an idle holder then
// costs well under 1 MiB of RSS, however many run) and falls back to the default linking; macOS
// cannot link statically, and its system compiler (Xcode's command-line tools) builds it as is.

/** Argument lists for `cc`, tried in order until one succeeds. */
export function holderCompileAttempts(platform, sources, output) {
  const base = ['-O2', '-o', output, ...sources];
  return platform === 'linux' ? [['-static', ...base], base] : [base];
}
