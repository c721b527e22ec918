// The app's log: one line per event in $TERMIO_HOME/logs/termio.log (and stderr when
// TERMIO_LOG_STDERR=1). Never throws: a log that cannot be written must not break the app. At
// its size cap the file is renamed to <file>.1 (replacing the one before), so the logs never hold
// more than twice the cap, whatever writes to them.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A log file's size cap: weeks of ordinary lines, and what a flood may cost the disk (twice this). */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;

/** Lines below `level` (default: TERMIO_LOG_LEVEL, else info) are dropped. */
export function createLogger(file: string | null, opts: { stderr?: boolean; level?: LogLevel; maxBytes?: number } = {}): Logger {
  let dirReady = false;
  /** The file's size as this logger knows it (read once; another process appending is caught at the next rotation). */
  let size = -1;
  const maxBytes = opts.maxBytes ?? MAX_LOG_BYTES;
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
      if (size < 0) size = fileSize(file);
      const bytes = Buffer.byteLength(line);
      if (size + bytes > maxBytes && size > 0) {
        renameSync(file, `${file}.1`);
        size = 0;
      }
      appendFileSync(file, line);
      size += bytes;
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

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** A logger that drops everything (tests, and before the app knows TERMIO_HOME). */
export const nullLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
