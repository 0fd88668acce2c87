/**
 * The config as `macs hook` reads it: from a cache of the validated config
 * when nothing it depends on has changed, else through `loadConfig`.
 *
 * The hook runs on every tool call of every agent, so its start-up counts
 * (issue 15), and validating the config was most of it: zod is 180 KB of
 * code to load and compile, and the config's schemas take milliseconds to
 * build. So the hook keeps the config it loaded, validated and with its
 * defaults filled in, in `.macs/cache/config.json` (0600, written
 * atomically), together with the key it was loaded under, and reads it back
 * with a plain JSON.parse while the key still matches. The key is all that
 * `loadConfig` reads:
 * - the config file's path, whether it was given (`--config`), and its
 *   whole text, or that there was none (the text, not its mtime: exact);
 * - the text of `.macs/hub-policy.json`, the policy a hub gave this host
 *   (home/hub-policy.ts), or that there was none;
 * - the values of the MACS_* variables the config reads (config/env.ts),
 *   and no others, so agents with their own MACS_AGENT share one entry;
 * - this build of macs: its version, and the size, mtime and inode of this
 *   module's file (a rebuilt checkout keeps its version while the defaults
 *   the cache holds may have changed; two builds used on one home replace
 *   each other's entry, each then loading the config itself).
 * The hook passes no flags. On a miss, the loader is imported (and zod with
 * it), is handed the very text the key was made of, and its result replaces
 * the cache. A config that does not load is never cached, so it is reported
 * on every call exactly as before. The cache is written only into an
 * existing `.macs/` (a hook never creates one); when it cannot be written,
 * the hook is only slower.
 */
import { existsSync, statSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_ENV } from '../config/env.js';
import type { MacsConfig } from '../config/schema.js';
import { ensurePrivateDir, unsafeReason, writeFileAtomic } from '../home/fs.js';
import { readHubPolicy } from '../home/hub-policy.js';
import type { HomePaths } from '../home/paths.js';
import { VERSION } from '../version.js';

/** What a cached config is valid for. */
export interface ConfigCacheKey {
  build: string;
  file: string;
  explicit: boolean;
  /** The file's text; null when it could not be read. */
  text: string | null;
  /** The hub's policy file's text; null when there is none. */
  hubPolicy: string | null;
  /** The MACS_* variables the config reads, those that are set. */
  env: Record<string, string>;
}

interface CacheEntry {
  key: ConfigCacheKey;
  config: MacsConfig;
}

export interface HookConfigOptions {
  /** An explicit config path (`--config`, MACS_CONFIG), relative to the home. */
  path?: string;
  env: NodeJS.ProcessEnv;
}

/** Where the hook keeps the config it loaded. */
export function configCachePath(paths: HomePaths): string {
  return path.join(paths.runtime, 'cache', 'config.json');
}

/** This build of macs: its version and this module's file. */
export function buildId(): string {
  const info = statSync(fileURLToPath(import.meta.url));
  return `${VERSION} ${info.size} ${info.mtimeMs} ${info.ino}`;
}

/** Pure: the key of a config loaded from `file` (its text) under `env`. */
export function configCacheKey(input: {
  build: string;
  file: string;
  explicit: boolean;
  text: string | undefined;
  hubPolicy?: string | undefined;
  env: NodeJS.ProcessEnv;
}): ConfigCacheKey {
  const env: Record<string, string> = {};
  for (const name of Object.keys(CONFIG_ENV)) {
    const value = input.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    build: input.build,
    file: input.file,
    explicit: input.explicit,
    text: input.text ?? null,
    hubPolicy: input.hubPolicy ?? null,
    env,
  };
}

/** The cached config when it was stored under `key`; else undefined. */
async function readCachedConfig(
  file: string,
  key: ConfigCacheKey,
): Promise<MacsConfig | undefined> {
  let entry: Partial<CacheEntry>;
  try {
    // Taken only from a file of our own that nobody else may write (not a
    // link): a planted cache would be a planted policy. Anything else is a
    // miss, and the full load writes a good one over it.
    const info = await lstat(file);
    if (!info.isFile() || unsafeReason(info) !== undefined) return undefined;
    entry = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheEntry>;
  } catch {
    return undefined; // none yet, or not JSON: a miss
  }
  const config = entry?.config;
  if (JSON.stringify(entry?.key) !== JSON.stringify(key)) return undefined;
  return typeof config === 'object' && config !== null ? config : undefined;
}

async function writeCachedConfig(
  paths: HomePaths,
  entry: CacheEntry,
): Promise<void> {
  if (!existsSync(paths.runtime)) return;
  const file = configCachePath(paths);
  try {
    await ensurePrivateDir(path.dirname(file));
    await writeFileAtomic(file, JSON.stringify(entry));
  } catch {
    // Not written: the next call loads the config again.
  }
}

/**
 * The config for a hook call: the cached one when its key matches, else
 * the one `loadConfig` loads and validates (which then replaces the
 * cache). Throws what `loadConfig` throws.
 */
export async function loadHookConfig(
  paths: HomePaths,
  options: HookConfigOptions,
): Promise<MacsConfig> {
  const explicit = options.path !== undefined;
  const file =
    options.path !== undefined
      ? path.resolve(paths.home, options.path)
      : paths.config;
  const read = await readFile(file, 'utf8').then(
    (text) => ({ text }),
    (error: Error) => ({ error }),
  );
  // Read before the key is made: an unsafe file is an error, never cached.
  const hubPolicy = await readHubPolicy(paths.runtime);
  const key = configCacheKey({
    build: buildId(),
    file,
    explicit,
    text: 'text' in read ? read.text : undefined,
    hubPolicy: hubPolicy?.text,
    env: options.env,
  });
  const cached = await readCachedConfig(configCachePath(paths), key);
  if (cached) return cached;
  const { loadConfig } = await import('../config/load.js');
  const { config } = await loadConfig({
    home: paths.home,
    env: options.env,
    ...(explicit ? { path: options.path } : {}),
    // The text the key was made of, or the error reading it gave.
    readFile: () =>
      'text' in read ? Promise.resolve(read.text) : Promise.reject(read.error),
    ...(hubPolicy ? { hubPolicy } : {}),
  });
  await writeCachedConfig(paths, { key, config });
  return config;
}
