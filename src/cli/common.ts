import { loadConfig, type LoadedConfig } from '../config/load.js';
import { lstatSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError, MacsError, TmuxError, errorMessage } from '../errors.js';
import type { MacsConfig } from '../config/schema.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { CliDeps, CommonOptions } from './options.js';
import { assertSafe, homePolicy } from '../home/fs.js';
import { readHubPolicy } from '../home/hub-policy.js';
import { findHome, resolveHomePaths, type HomePaths } from '../home/paths.js';
import { readSessionRecord } from '../session/record.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';

/**
 * A home another user could use to redirect macs's writes or plant answers
 * (SPEC §9) stops the command (exit 2) naming the path: the home owned by
 * another user or writable by others, or its macs folders (`.macs/`,
 * `inbox/`, `outbox/`, `archive/`) a link, another user's, or writable by
 * others. `--allow-shared-home` makes the ownership problems warnings.
 */
export function checkHomeSafe(
  paths: HomePaths,
  options: CommonOptions,
  warn: (line: string) => void,
): void {
  homePolicy.allowShared = options.allowSharedHome === true;
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

export interface CommandContext {
  paths: HomePaths;
  tmux: TmuxClient;
  log: Logger;
  /** The home's config (loadHomeConfig), with the command's flags. */
  loadConfig(
    flags?: Partial<MacsConfig>,
    options?: { ownPolicy?: boolean },
  ): Promise<LoadedConfig>;
}

/**
 * A home's config as the commands load it: its file (or `--config`), the
 * MACS_* variables and `flags`; on a host whose session a hub started, the
 * hub's policy in place of the file's (home/hub-policy.ts), unless
 * `ownPolicy` (a new session decides its policy itself).
 */
export async function loadHomeConfig(
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
  options: {
    config?: string | undefined;
    flags?: Partial<MacsConfig> | undefined;
    ownPolicy?: boolean | undefined;
  } = {},
): Promise<LoadedConfig> {
  const hubPolicy = options.ownPolicy
    ? undefined
    : await readHubPolicy(paths.runtime);
  return loadConfig({
    home: paths.home,
    env,
    ...(options.config ? { path: options.config } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(hubPolicy ? { hubPolicy } : {}),
  });
}

/**
 * The tmux client of a long-running command (a bridge): over one control-mode
 * connection unless `MACS_TMUX_CONTROL=0`. Close it when done.
 */
export function createLongLivedTmuxClient(
  socket: string | undefined,
  deps: CliDeps,
  log?: Logger,
): TmuxClient {
  const control =
    deps.openTmuxControl && deps.env.MACS_TMUX_CONTROL !== '0'
      ? deps.openTmuxControl(socket, {
          // Commands go on as processes until it connects again.
          onDrop: (reason) =>
            log?.warn({ reason }, 'tmux control connection dropped'),
        })
      : undefined;
  return createTmuxClient(socket, deps.runTmux, control ? { control } : {});
}

/**
 * The home a command works in: `--home`/`MACS_HOME` when given, else the
 * nearest folder at or above the working folder that holds `.macs/` or
 * `macs.config.json` (as git finds its repository). Commands that set a
 * home up (`start`, `bridge`) use the working folder when there is none;
 * the others stop with exit 2 rather than invent one.
 */
export function resolveHome(
  options: CommonOptions,
  cwd: string,
  create: boolean,
): string {
  if (options.home) return path.resolve(cwd, options.home);
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

export function createContext(
  options: CommonOptions,
  deps: CliDeps,
  contextOptions: { longLived?: boolean; create?: boolean } = {},
): CommandContext {
  const home = resolveHome(options, deps.cwd, contextOptions.create === true);
  const paths = resolveHomePaths(home);
  checkHomeSafe(paths, options, deps.output.err);
  // The logger is made on first use: most commands never log.
  let log: Logger | undefined;
  const logger = (): Logger =>
    (log ??= createLogger({
      home: paths.home,
      level: options.logLevel ?? 'info',
    }));
  return {
    paths,
    tmux: contextOptions.longLived
      ? createLongLivedTmuxClient(options.tmuxSocket, deps, logger())
      : createTmuxClient(options.tmuxSocket, deps.runTmux),
    get log() {
      return logger();
    },
    loadConfig: (flags, how) =>
      loadHomeConfig(paths, deps.env, {
        config: options.config,
        flags,
        ownPolicy: how?.ownPolicy,
      }),
  };
}

/**
 * The config of a command a person needs to see and answer what waits
 * (`inbox`, `respond`, `dismiss`, `status`, `events`). While a session runs
 * (`.macs/session.json`), a broken config file does not stop it: one line
 * on stderr names the file and the problem, and the command goes on with
 * the default settings (and MACS_* variables); the session's bridge keeps
 * the settings it started with. With no session it is exit 2, as for every
 * command; `macs start` always refuses a broken config.
 */
export async function loadConfigOrDefaults(
  ctx: CommandContext,
  options: CommonOptions,
  deps: CliDeps,
): Promise<LoadedConfig> {
  try {
    return await ctx.loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (!(await readSessionRecord(ctx.paths).catch(() => undefined)))
      throw error;
    let fallback: LoadedConfig;
    try {
      // The same sources without the file: a bad MACS_* variable still stops.
      fallback = await loadConfig({
        home: ctx.paths.home,
        env: deps.env,
        ...(options.config ? { path: options.config } : {}),
        readFile: () => Promise.resolve('{}'),
      });
    } catch {
      throw error;
    }
    const problem = error.message
      .split('\n')
      .map((l) => l.trim())
      .join(' ');
    deps.output.err(
      `warning: ${problem}; going on with the default settings (the running session's bridge keeps the settings it started with)`,
    );
    return { config: fallback.config, file: undefined };
  }
}

/** `2m 3s ago`-style age for people. */
export function formatAge(fromIso: string, now = Date.now()): string {
  const ms = Math.max(0, now - Date.parse(fromIso));
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h${String(m % 60).padStart(2, '0')}m`;
}

/** How often a long-running command checks that its tmux server is still there. */
export const SERVER_CHECK_MS = 1000;

/**
 * Watch the tmux server a long-running command works with: the promise
 * rejects with a TmuxError (exit 3) once the server is gone, so a bridge
 * whose server was killed stops with a clear message instead of idling.
 */
export function watchTmuxServer(tmux: TmuxClient): {
  gone: Promise<never>;
  stop: () => void;
} {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const gone = new Promise<never>((_, reject) => {
    const check = async () => {
      if (stopped) return;
      const running = await tmux.isServerRunning().catch(() => false);
      if (stopped) return;
      if (!running) {
        const where = tmux.socket
          ? `tmux server '${tmux.socket}' (tmux -L ${tmux.socket})`
          : 'the tmux server';
        reject(
          new TmuxError(`${where} is no longer running; the bridge stops`, {
            hint: "start the session again (macs start), or the agents' tmux server, then the bridge",
          }),
        );
        return;
      }
      timer = setTimeout(() => void check(), SERVER_CHECK_MS);
    };
    timer = setTimeout(() => void check(), SERVER_CHECK_MS);
  });
  // A rejection nobody awaits yet must not crash the process.
  gone.catch(() => undefined);
  return {
    gone,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * A bug in a long-running command's own code (an exception no caller
 * catches) must still take the orderly way out: `crashed` rejects, the
 * command's `finally` stops its bridge (closing its pane pipes), and main
 * reports the error with exit 1.
 */
export function watchCrash(): { crashed: Promise<never>; stop: () => void } {
  let fail: (error: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  crashed.catch(() => undefined);
  const onCrash = (error: unknown) => {
    fail(
      new MacsError(`internal error: ${errorMessage(error)}`, {
        cause: error,
        hint: 'the bridge stopped cleanly; run it with --log-level debug and report .macs/macs.log',
      }),
    );
  };
  process.on('uncaughtException', onCrash);
  return {
    crashed,
    stop: () => process.off('uncaughtException', onCrash),
  };
}
