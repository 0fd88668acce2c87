/**
 * Workers the hub's config puts on a host (`"host": "gpu1"`,
 * docs/remote.md). The hub's `macs start` gives them to the host's own
 * `macs start --hub-workers` as JSON on stdin (never on the command line);
 * the host checks them with its own schema and starts them in the same
 * session as the workers of its own config. A name both define is an error
 * before anything starts.
 */
import * as z from 'zod/mini';
import {
  AgentConfigSchema,
  type AgentConfig,
  type MacsConfig,
} from '../config/schema.js';
import { hostWorkers } from '../config/workers.js';
import { formatConfigIssues } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { CliDeps } from './options.js';

/** Most bytes of hub workers a host reads (a few hundred workers). */
export const MAX_HUB_WORKERS_BYTES = 256 * 1024;
const MAX_HUB_WORKERS = 256;

const HubWorkersSchema = z
  .array(AgentConfigSchema)
  .check(z.maxLength(MAX_HUB_WORKERS));

/** What the hub sends a host: its workers there, without the `host` key. */
export function formatHubWorkers(
  config: MacsConfig,
  host: string,
): string | undefined {
  const workers = hostWorkers(config, host).map(
    ({ host: _host, ...rest }) => rest,
  );
  return workers.length > 0 ? JSON.stringify(workers) : undefined;
}

/** On the host: the hub's workers from stdin, checked as a config is. */
export async function readHubWorkers(deps: CliDeps): Promise<AgentConfig[]> {
  const text = await deps.readStdin(MAX_HUB_WORKERS_BYTES);
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new ConfigError('--hub-workers: stdin is not a JSON list of workers');
  }
  const parsed = HubWorkersSchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(
      `--hub-workers: the hub's workers are not valid:\n  ${formatConfigIssues(parsed.error, input).join('\n  ')}`,
      { hint: 'check "workers" with "host" in the hub\'s macs.config.json' },
    );
  const stray = parsed.data.find((w) => w.host !== undefined);
  if (stray)
    throw new ConfigError(
      `--hub-workers: worker '${stray.name}' names a host; a host runs its hub workers itself`,
    );
  return parsed.data;
}

/**
 * This host's config with the hub's workers added. A name that the host's
 * own config uses too (a worker or the controller) is an error naming both.
 */
export function mergeHubWorkers(
  config: MacsConfig,
  hub: readonly AgentConfig[],
): MacsConfig {
  const own = new Set([
    ...config.workers.map((w) => w.name),
    ...(config.controller ? [config.controller.name] : []),
  ]);
  const seen = new Set<string>();
  for (const worker of hub) {
    if (own.has(worker.name))
      throw new ConfigError(
        `worker '${worker.name}' is defined both in this host's macs.config.json and in the hub's (with "host"); nothing was started`,
        { hint: 'rename one of them: the hub sees both as <host>/<name>' },
      );
    if (seen.has(worker.name))
      throw new ConfigError(
        `the hub defines worker '${worker.name}' twice for this host`,
      );
    seen.add(worker.name);
  }
  return { ...config, workers: [...config.workers, ...hub] };
}
