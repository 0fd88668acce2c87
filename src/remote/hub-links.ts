import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { VERSION } from '../version.js';
import { writeLinkStates } from './link-states.js';
import type { LinkState } from './link.js';
import { createRemoteFleet, type RemoteFleet } from './remote-fleet.js';

/**
 * The hub's bridge holds a link to each host while it runs (docs/remote.md):
 * it notices a link that drops or hangs, reconnects, delivers the answers
 * kept while a host was away, and records each link's state
 * (`.macs/remote/links.json`) for `macs hosts`. `notice` gets a line on
 * each change between up and down.
 */
export function startHubLinks(
  hub: {
    paths: HomePaths;
    log: Logger;
    config: MacsConfig;
    env: NodeJS.ProcessEnv;
  },
  notice: (line: string) => void,
): RemoteFleet {
  const { paths, log } = hub;
  const last = new Map<string, LinkState['link']>();
  const holder: { fleet?: RemoteFleet } = {};
  const onState = (state: LinkState) => {
    if (last.get(state.host) === state.link) return;
    last.set(state.host, state.link);
    notice(
      `macs: host ${state.host}: link ${state.link}${state.error ? ` (${state.error.message})` : ''}`,
    );
    if (holder.fleet)
      writeLinkStates(paths, holder.fleet.states()).catch((error: unknown) =>
        log.warn({ err: error }, 'link states not written'),
      );
  };
  const fleet = createRemoteFleet(
    { config: hub.config, env: hub.env, paths, version: VERSION, log },
    { live: true, onState },
  );
  holder.fleet = fleet;
  return fleet;
}
