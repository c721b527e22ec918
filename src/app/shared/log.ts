// The app's log: one line per event in $TERMIO_HOME/logs/termio.log (and stderr when
// TERMIO_LOG_STDERR=1). Never throws: a log that cannot be written must not break the app.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Lines below `level` (default: TERMIO_LOG_LEVEL, else info) are dropped. */
export function createLogger(file: string | null, opts: { stderr?: boolean; level?: LogLevel } = {}): Logger {
  let dirReady = false;
  const envLevel = process.env.TERMIO_LOG_LEVEL as LogLevel | undefined;
  const min = rank[opts.level ?? (envLevel && envLevel in rank ? envLevel : 'info')];
  const write = (level: LogLevel, msg: string, data?: Record<string, unknown>) => {
    if (rank[level] < min) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase()} ${msg}${data ? ` ${JSON.stringify(data)}` : ''}\n`;
    if (opts.stderr) process.stderr.write(line);
    if (!file) return;
    try {
      if (!dirReady) {
        mkdirSync(dirname(file), { recursive: true });
        dirReady = true;
      }
      appendFileSync(file, line);
    } catch {
      // The log is best effort.
    }
  };
  return {
    debug: (m, d) => write('debug', m, d),
    info: (m, d) => write('info', m, d),
    warn: (m, d) => write('warn', m, d),
    error: (m, d) => write('error', m, d),
  };
}

/** A logger that drops everything (tests, and before the app knows TERMIO_HOME). */
export const nullLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
