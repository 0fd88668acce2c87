/**
 * What the hub gives a host's `macs start --from-hub` (docs/remote.md), as
 * JSON on stdin (never on the command line): the workers the hub's config
 * puts on that host (`"host": "gpu1"`) and the hub's `policy`. The host
 * checks both with its own schema, starts the workers in the same session
 * as those of its own config (a name both define is an error before
 * anything starts), and decides approvals by the hub's policy
 * (home/hub-policy.ts).
 */
import * as z from 'zod/mini';
import type { PolicyConfig } from '../config/policy-defaults.js';
import { PolicySchema } from '../config/policy.js';
import {
  AgentConfigSchema,
  type AgentConfig,
  type MacsConfig,
} from '../config/schema.js';
import { hostWorkers } from '../config/workers.js';
import { formatConfigIssues } from '../config/load.js';
import { ConfigError } from '../errors.js';

/** Most bytes a host reads from its hub (a few hundred workers). */
export const MAX_FROM_HUB_BYTES = 256 * 1024;
const MAX_HUB_WORKERS = 256;

const FromHubSchema = z.strictObject({
  workers: z.array(AgentConfigSchema).check(z.maxLength(MAX_HUB_WORKERS)),
  policy: PolicySchema,
});

/** What a host takes from its hub. */
export interface FromHub {
  workers: AgentConfig[];
  policy: PolicyConfig;
}

/** What the hub sends a host: its workers there (without `host`), its policy. */
export function formatFromHub(config: MacsConfig, host: string): string {
  const workers = hostWorkers(config, host).map(
    ({ host: _host, ...rest }) => rest,
  );
  return JSON.stringify({ workers, policy: config.policy });
}

/** On the host: what the hub sent on stdin, checked as a config is. */
export async function readFromHub(stdin: {
  readStdin: (maxBytes: number) => Promise<string>;
}): Promise<FromHub> {
  const text = await stdin.readStdin(MAX_FROM_HUB_BYTES);
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new ConfigError(
      "--from-hub: stdin is not JSON (the hub's workers and policy)",
    );
  }
  const parsed = FromHubSchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(
      `--from-hub: what the hub sent is not valid:\n  ${formatConfigIssues(parsed.error, input).join('\n  ')}`,
      {
        hint: 'check "policy" and the workers with "host" in the hub\'s macs.config.json',
      },
    );
  const stray = parsed.data.workers.find((w) => w.host !== undefined);
  if (stray)
    throw new ConfigError(
      `--from-hub: worker '${stray.name}' names a host; a host runs its hub workers itself`,
    );
  return parsed.data;
}

/**
 * A new session's config on a host: the hub's policy, the hub's workers
 * added to this home's own (`mergeHubWorkers`).
 */
export function withHub(config: MacsConfig, hub: FromHub): MacsConfig {
  return mergeHubWorkers({ ...config, policy: hub.policy }, hub.workers);
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
