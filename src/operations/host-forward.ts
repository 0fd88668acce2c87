/**
 * The hosts of a hub (docs/remote.md), as the operations reach them: which
 * host a `<host>/<name>` names, a one-shot fleet for one operation, and an
 * operation about a host's agent or request run by that host's own macs.
 */
import type { MacsConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import {
  createRemoteFleet,
  hostTargets,
  type RemoteFleet,
} from '../remote/remote-fleet.js';
import { runHostMacs } from '../remote/forward.js';
import type { HostTarget } from '../remote/host-session.js';
import { splitRemoteName } from '../remote/names.js';
import { VERSION } from '../version.js';

/** What an operation needs to reach the hosts of a hub. */
export interface HubContext {
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  paths: HomePaths;
  log: Logger;
}

/** A host's agent or request: the host, and the name it has there. */
export interface HostName {
  target: HostTarget;
  name: string;
}

/** A one-shot fleet: a short session per host on first use, closed by `fn`'s end. */
export async function withHostFleet<T>(
  hub: HubContext,
  fn: (fleet: RemoteFleet) => Promise<T>,
): Promise<T> {
  const fleet = createRemoteFleet(
    { ...hub, version: VERSION },
    { live: false },
  );
  try {
    return await fn(fleet);
  } finally {
    await fleet.close();
  }
}

/** The host of `<host>/<name>`, checked; undefined for a local name. */
export function remoteTargetOf(
  qualified: string,
  kind: 'agent' | 'request',
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): HostName | undefined {
  const split = splitRemoteName(qualified, kind);
  if (split === undefined) return undefined;
  if (split === 'invalid')
    throw new ConfigError(
      `'${qualified}' is not ${kind === 'request' ? 'a request id' : 'an agent name'}`,
      {
        hint:
          kind === 'request'
            ? 'see the ids with `macs inbox` (on another host: <host>/<id>)'
            : 'see the agents with `macs status` (on another host: <host>/<agent>)',
      },
    );
  const target = hostTargets(config, env).find((t) => t.name === split.host);
  if (!target)
    throw new ConfigError(`no host '${split.host}' in macs.config.json`, {
      hint: 'add it under "hosts" (docs/remote.md); `macs hosts` lists them',
    });
  return { target, name: split.name };
}

/**
 * `macs <argv…>` run by a host's own macs (`input` on its stdin): its
 * reply's lines, each naming the host (`gpu1: …`).
 */
export async function runOnHost(
  target: HostTarget,
  argv: readonly string[],
  input?: string,
): Promise<string[]> {
  const lines = await runHostMacs(target, argv, input);
  return lines.map((line) => `${target.name}: ${line}`);
}
