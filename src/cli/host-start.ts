import type { MacsConfig } from '../config/schema.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';

/**
 * `macs start` at a hub: each host of the config starts its own session
 * (host-sessions.ts, loaded only when there are hosts); undefined when
 * the config names none, else the exit code of the hosts' part.
 */
export async function startHostSessions(
  config: MacsConfig,
  deps: CliDeps,
): Promise<number | undefined> {
  if (Object.keys(config.hosts).length === 0) return undefined;
  const { runOnHosts } = await import('./host-sessions.js');
  return runOnHosts('start', config, deps);
}

/**
 * `macs stop` at a hub: each host's session (or only `only`'s) is stopped
 * by its own macs; undefined when the config names no hosts (or cannot be
 * read: stopping this machine's session goes on).
 */
export async function stopHostSessions(
  ctx: CommandContext,
  deps: CliDeps,
  only: string | undefined,
): Promise<number | undefined> {
  const config = await ctx
    .loadConfig()
    .then((c) => c.config)
    .catch(() => undefined);
  if (!config || Object.keys(config.hosts).length === 0) {
    if (only !== undefined)
      deps.output.err(`macs: no host '${only}' in macs.config.json`);
    return undefined;
  }
  const { runOnHosts } = await import('./host-sessions.js');
  return runOnHosts('stop', config, deps, only);
}
