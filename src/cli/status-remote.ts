import type { MacsConfig } from '../config/schema.js';
import { hostLink, hostLinkLine, withLinkLine } from '../remote/host-link.js';
import { mergeHosts } from '../remote/fleet-model.js';
import { readRemoteFleet, type HostView } from '../remote/remote-fleet.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import { formatStatusText } from '../ui/status-text.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/**
 * `macs status` at a hub: each host read once, for the JSON (`remote` of
 * `status --json`, each host with its link in words) and for the text.
 */
export async function readRemoteStatus(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
): Promise<{
  json: { hosts: (HostView & { line: string })[] };
  views: HostView[];
}> {
  const hosts = await withRemoteFleet(ctx, config, deps, (fleet) =>
    readRemoteFleet(fleet, ctx.paths),
  );
  // Each host with its link in words (`line`), as `macs hosts --json`.
  return { json: { hosts: hosts.map(withLinkLine) }, views: hosts };
}

/**
 * `macs status` as text at a hub: the hub's one model of the fleet
 * (remote/fleet-model.ts), so the totals, the agents and the requests are
 * those of the live view, the page and the MCP tools (`<host>/<agent>`,
 * `<host>/<id>` beside this machine's); then each host's link in the words
 * of every door (remote/host-link.ts).
 */
export function formatHubStatus(
  snapshot: Snapshot,
  hosts: readonly HostView[],
  nowMs: number,
): string[] {
  return [
    ...formatStatusText(mergeHosts(snapshot, hosts, nowMs), nowMs),
    '',
    `HOSTS (${hosts.length})`,
    ...hosts.map((h) => `  ${hostLinkLine(hostLink(h))}`),
  ];
}
