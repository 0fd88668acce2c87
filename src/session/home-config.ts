/**
 * A home's config as the commands load it: its file (or `--config`), the
 * MACS_* variables and the command's flags, with a hub's policy on a host
 * whose session a hub started; and the defaults a running session's
 * commands go on with when the file is broken.
 */
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { MacsConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { readHubPolicy } from '../home/hub-policy.js';
import type { HomePaths } from '../home/paths.js';
import { readSessionRecord } from './record.js';

/**
 * A home's config as the commands load it: its file (or `config`), the
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
 * `load`'s config; while a session runs (`.macs/session.json`), a broken
 * config file (a ConfigError) gives the default settings (and the MACS_*
 * variables) instead, with a warning that says why. With no session, or a
 * bad MACS_* variable, the error stands.
 */
export async function loadConfigOrSessionDefaults(
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
  config: string | undefined,
  load: () => Promise<LoadedConfig>,
): Promise<LoadedConfig & { warning?: string }> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (!(await readSessionRecord(paths).catch(() => undefined))) throw error;
    let fallback: LoadedConfig;
    try {
      // The same sources without the file: a bad MACS_* variable still stops.
      fallback = await loadConfig({
        home: paths.home,
        env,
        ...(config ? { path: config } : {}),
        readFile: () => Promise.resolve('{}'),
      });
    } catch {
      throw error;
    }
    const problem = error.message
      .split('\n')
      .map((l) => l.trim())
      .join(' ');
    return {
      config: fallback.config,
      file: undefined,
      warning: `warning: ${problem}; going on with the default settings (the running session's bridge keeps the settings it started with)`,
    };
  }
}
