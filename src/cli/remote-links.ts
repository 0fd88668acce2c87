import type { MacsConfig } from '../config/schema.js';
import { createRemoteFleet, type RemoteFleet } from '../remote/remote-fleet.js';
import { writeLinkStates } from '../remote/link-states.js';
import type { LinkState } from '../remote/link.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';

/**
 * The hub's bridge holds a link to each host while it runs (docs/remote.md):
 * it notices a link that drops or hangs, reconnects, delivers the answers
 * kept while a host was away, and records each link's state
 * (`.macs/remote/links.json`) for `macs hosts`. A notice line on each
 * change between up and down.
 */
export function startHubLinks(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
): RemoteFleet {
  const last = new Map<string, LinkState['link']>();
  const holder: { fleet?: RemoteFleet } = {};
  const onState = (state: LinkState) => {
    if (last.get(state.host) === state.link) return;
    last.set(state.host, state.link);
    deps.output.err(
      `macs: host ${state.host}: link ${state.link}${state.error ? ` (${state.error.message})` : ''}`,
    );
    if (holder.fleet)
      writeLinkStates(ctx.paths, holder.fleet.states()).catch(
        (error: unknown) =>
          ctx.log.warn({ err: error }, 'link states not written'),
      );
  };
  const fleet = createRemoteFleet(
    { config, env: deps.env, paths: ctx.paths, version: VERSION, log: ctx.log },
    { live: true, onState },
  );
  holder.fleet = fleet;
  return fleet;
}
