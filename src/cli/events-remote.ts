/**
 * `macs events --follow` at a hub (docs/remote.md): the hosts' events
 * too, each line naming its host (`gpu1/worker-1`, `gpu1/<id>`), followed
 * over ssh by remote/host-events.ts. `--agent gpu1/<name>` and `--request
 * gpu1/<id>` follow that host only; a local name, this machine only.
 */
import type { MacsConfig } from '../config/schema.js';
import { hostTargets } from '../remote/fleet.js';
import {
  followHostEvents,
  type HostEventQuery,
  type HubEvent,
} from '../remote/host-events.js';
import type { HostTarget } from '../remote/host-session.js';
import type { CliDeps } from './options.js';
import { remoteTargetOf } from './remote.js';

export interface HostFollow {
  target: HostTarget;
  query: HostEventQuery;
}

/**
 * The hosts to follow for these options, and whether this machine's own
 * log is followed too.
 */
export function planHostFollows(
  opts: { agent?: string; type?: string; request?: string; since?: string },
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): { hosts: HostFollow[]; local: boolean } {
  const common: HostEventQuery = {
    ...(opts.type ? { type: opts.type } : {}),
    ...(opts.since ? { since: opts.since } : {}),
  };
  const agent = opts.agent
    ? remoteTargetOf(opts.agent, 'agent', config, env)
    : undefined;
  const request = opts.request
    ? remoteTargetOf(opts.request, 'request', config, env)
    : undefined;
  if (agent && request && agent.target.name !== request.target.name)
    return { hosts: [], local: false };
  if (agent || request) {
    const target = (agent ?? request)?.target as HostTarget;
    return {
      hosts: [
        {
          target,
          query: {
            ...common,
            ...(agent ? { agent: agent.name } : {}),
            ...(request ? { request: request.name } : {}),
          },
        },
      ],
      local: false,
    };
  }
  // A local agent or request: this machine's log only.
  if (opts.agent || opts.request) return { hosts: [], local: true };
  return {
    hosts: hostTargets(config, env).map((target) => ({
      target,
      query: common,
    })),
    local: true,
  };
}

/** Follow each host until `signal` aborts; events and notices as they come. */
export function followHosts(
  follows: readonly HostFollow[],
  deps: CliDeps,
  print: (event: HubEvent) => void,
  signal: AbortSignal,
): Promise<void[]> {
  return Promise.all(
    follows.map((f) =>
      followHostEvents(f.target, f.query, {
        signal,
        onEvent: print,
        onNotice: (line) => deps.output.err(`macs: ${line}`),
      }),
    ),
  );
}
