import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';

/**
 * The root logger. Logs are for developers and go to `.macs/macs.log` under
 * home, never to the terminal (the status view and command output own it).
 */
export function createLogger(options: {
  home?: string;
  level?: LogLevel;
  destination?: string;
}): Logger {
  const level = options.level ?? 'info';
  if (level === 'silent' || (!options.home && !options.destination)) {
    return pino({ level: 'silent' });
  }
  const file =
    options.destination ?? path.join(options.home ?? '.', '.macs', 'macs.log');
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return pino(
    { level, base: { pid: process.pid } },
    pino.destination({ dest: file, sync: false, mkdir: true, mode: 0o600 }),
  );
}

/** A logger that drops everything (tests, pure callers). */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
