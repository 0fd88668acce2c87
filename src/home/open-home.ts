/**
 * Opening a macs home for a command: which folder it is, that no other user
 * can redirect macs's writes there (SPEC §9), and whether macs is already
 * there (a hub reaching a host's home).
 */
import { existsSync, lstatSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { assertSafe, homePolicy } from './fs.js';
import { findHome, type HomePaths } from './paths.js';

/**
 * The home a command works in: `home` (`--home`/`MACS_HOME`) when given,
 * else the nearest folder at or above `cwd` that holds `.macs/` or
 * `macs.config.json` (as git finds its repository). With `create` (commands
 * that set a home up) `cwd` when there is none; else a ConfigError rather
 * than invent one.
 */
export function resolveHomeDir(
  home: string | undefined,
  cwd: string,
  create: boolean,
): string {
  if (home) return path.resolve(cwd, home);
  const found = findHome(cwd);
  if (found) return found;
  if (create) return cwd;
  throw new ConfigError(
    `no macs home in ${cwd} or any folder above it (none holds .macs/ or macs.config.json)`,
    {
      hint: 'run it where you ran `macs start`, or pass --home <dir> (MACS_HOME)',
    },
  );
}

/**
 * A home another user could use to redirect macs's writes or plant answers
 * (SPEC §9) throws, naming the path: the home owned by another user or
 * writable by others, or its macs folders (`.macs/`, `inbox/`, `outbox/`,
 * `archive/`) a link, another user's, or writable by others. `allowShared`
 * (`--allow-shared-home`) makes the ownership problems warnings.
 */
export function checkHomeSafe(
  paths: HomePaths,
  allowShared: boolean,
  warn: (line: string) => void,
): void {
  homePolicy.allowShared = allowShared;
  homePolicy.warn = (message) => warn(`warning: ${message}`);
  const home = statSafe(paths.home, statSync);
  if (home) assertSafe(paths.home, home);
  for (const dir of [paths.runtime, paths.inbox, paths.outbox, paths.archive]) {
    const info = statSafe(dir, lstatSync);
    if (info) assertSafe(dir, info);
  }
}

function statSafe(
  file: string,
  how: (file: string) => Stats,
): Stats | undefined {
  try {
    return how(file);
  } catch {
    return undefined;
  }
}

/**
 * A hub reaches a host's home only where macs already is (a config, or a
 * session that ran there): a mistyped `home` is an error naming it, and
 * nothing is created on the host (before, it showed up with 0 agents and
 * got a `.macs/`). `macs start` at the hub still makes the home.
 */
export function assertHubHome(paths: HomePaths): void {
  if (
    existsSync(paths.config) ||
    existsSync(paths.sessionFile) ||
    existsSync(paths.stoppedSessionFile)
  )
    return;
  throw new ConfigError(
    `${paths.home} is not a macs home (no macs.config.json, no .macs/session.json)`,
    {
      hint: 'check the host\'s "home" in the hub\'s macs.config.json, or start macs there (macs start at the hub)',
    },
  );
}
