/**
 * What the commands share: the context of a command (its home, checked, its
 * tmux client, its logger, its config) and the CLI's own formatting. The
 * home is opened by home/open-home.ts, the config loaded by
 * session/home-config.ts.
 */
import type { LoadedConfig } from '../config/load.js';
import type { MacsConfig } from '../config/schema.js';
import { checkHomeSafe, resolveHomeDir } from '../home/open-home.js';
import { resolveHomePaths, type HomePaths } from '../home/paths.js';
import { createLogger, type Logger } from '../log/logger.js';
import {
  loadConfigOrSessionDefaults,
  loadHomeConfig,
} from '../session/home-config.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { CliDeps, CommonOptions } from './options.js';

export { loadHomeConfig };

/** The home a command works in (home/open-home.ts): `--home`, else found. */
export function resolveHome(
  options: CommonOptions,
  cwd: string,
  create: boolean,
): string {
  return resolveHomeDir(options.home, cwd, create);
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

export function createContext(
  options: CommonOptions,
  deps: CliDeps,
  contextOptions: { longLived?: boolean; create?: boolean } = {},
): CommandContext {
  const home = resolveHome(options, deps.cwd, contextOptions.create === true);
  const paths = resolveHomePaths(home);
  // A home others could write to stops the command (exit 2), naming the path.
  checkHomeSafe(paths, options.allowSharedHome === true, deps.output.err);
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
  const { warning, ...loaded } = await loadConfigOrSessionDefaults(
    ctx.paths,
    deps.env,
    options.config,
    () => ctx.loadConfig(),
  );
  if (warning) deps.output.err(warning);
  return loaded;
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
