/**
 * The config values that `MACS_*` environment variables set, and how each
 * is read. No zod here: besides `loadConfig`, `macs hook` reads the names,
 * to key its cache of the loaded config on their values (hooks/config-cache.ts).
 */
import { ConfigError } from '../errors.js';
import type { MacsConfig } from './schema.js';

/** Config values that may come from `MACS_*` environment variables. */
export const CONFIG_ENV: Readonly<
  Record<string, { key: keyof MacsConfig; kind: 'int' | 'bool' | 'string' }>
> = {
  MACS_BACKEND: { key: 'backend', kind: 'string' },
  MACS_DEDUP_WINDOW_SEC: { key: 'dedupWindowSec', kind: 'int' },
  MACS_MAX_BLOCK_LINES: { key: 'maxBlockLines', kind: 'int' },
  MACS_MAX_BLOCK_BYTES: { key: 'maxBlockBytes', kind: 'int' },
  MACS_INCOMPLETE_AFTER_SEC: { key: 'incompleteAfterSec', kind: 'int' },
  MACS_DELIVER_TIMEOUT_SEC: { key: 'deliverTimeoutSec', kind: 'int' },
  MACS_SUBMIT_RETRIES: { key: 'submitRetries', kind: 'int' },
  MACS_HEURISTICS: { key: 'heuristics', kind: 'bool' },
  MACS_NO_SPLIT: { key: 'noSplit', kind: 'bool' },
  MACS_NON_INTERACTIVE: { key: 'nonInteractive', kind: 'bool' },
  MACS_POLL_INTERVAL_MS: { key: 'pollIntervalMs', kind: 'int' },
  MACS_BACKSTOP_MS: { key: 'backstopMs', kind: 'int' },
};

/**
 * The config values the environment sets (unset or empty variables set
 * nothing), not yet validated. A variable that should be an integer and is
 * not is a ConfigError naming it.
 */
export function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, { key, kind }] of Object.entries(CONFIG_ENV)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (kind === 'int') {
      const n = Number(raw);
      if (!Number.isInteger(n)) {
        throw new ConfigError(
          `environment ${name}: expected an integer, received '${raw}'`,
        );
      }
      out[key] = n;
    } else if (kind === 'bool') {
      out[key] = /^(1|true|yes|on)$/i.test(raw);
    } else {
      out[key] = raw;
    }
  }
  return out;
}
