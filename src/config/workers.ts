/**
 * Which workers of a config run where: on this machine, or on one of the
 * hosts it names (docs/remote.md). Free of zod, so `macs hook` can use it
 * without loading the schema.
 */
import type { AgentConfig } from './schema.js';

/** The workers this machine runs itself (not those of another host). */
export function localWorkers(config: {
  workers: AgentConfig[];
}): AgentConfig[] {
  return config.workers.filter((w) => w.host === undefined);
}

/** The workers the hub's config puts on `host`. */
export function hostWorkers(
  config: { workers: AgentConfig[] },
  host: string,
): AgentConfig[] {
  return config.workers.filter((w) => w.host === host);
}
