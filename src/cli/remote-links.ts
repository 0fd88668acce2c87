// The hub's links to its hosts while its bridge runs: remote/hub-links.ts.
import type { MacsConfig } from '../config/schema.js';
import { startHubLinks as startLinks } from '../remote/hub-links.js';
import type { RemoteFleet } from '../remote/remote-fleet.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';

/** The hub's links, each change between up and down a line on stderr. */
export function startHubLinks(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
): RemoteFleet {
  return startLinks(
    { paths: ctx.paths, log: ctx.log, config, env: deps.env },
    deps.output.err,
  );
}
