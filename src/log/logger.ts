import { constants, fstatSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';
import { makeDirsSync } from '../home/make-dirs.js';
import type * as PinoModule from 'pino';

export type { Logger } from 'pino';

// pino is loaded on the first logger, from node_modules (the build leaves it
// out of the bundle, scripts/build.mjs): most commands never log, and loading
// it took a third of `macs inbox`'s start-up.
const requireHere = createRequire(import.meta.url);
const loadPino = (): typeof PinoModule =>
  requireHere('pino') as typeof PinoModule;

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
    return loadPino().pino({ level: 'silent' });
  }
  const file =
    options.destination ?? path.join(options.home ?? '.', '.macs', 'macs.log');
  makeDirsSync(path.dirname(file), 0o700);
  const fd = openLogFile(file);
  if (fd === undefined) return loadPino().pino({ level: 'silent' });
  return loadPino().pino(
    { level, base: { pid: process.pid } },
    loadPino().destination({ fd, sync: false }),
  );
}

/**
 * The developer log, opened for appending without following a link (a link
 * planted at `.macs/macs.log` would have macs append to another file). A
 * log that cannot be opened safely is not written: logs are for developers.
 */
function openLogFile(file: string): number | undefined {
  try {
    const fd = openSync(
      file,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        (constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    const info = fstatSync(fd);
    const uid = process.getuid?.();
    if (
      !info.isFile() ||
      info.nlink > 1 ||
      (uid !== undefined && info.uid !== uid)
    )
      return undefined;
    return fd;
  } catch {
    return undefined;
  }
}

/** A logger that drops everything (tests, pure callers). */
export function createSilentLogger(): Logger {
  return loadPino().pino({ level: 'silent' });
}
