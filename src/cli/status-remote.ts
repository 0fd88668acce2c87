import type { MacsConfig } from '../config/schema.js';
import { hostLink, hostLinkLine, withLinkLine } from '../remote/host-link.js';
import { readRemoteFleet, type HostView } from '../remote/remote-fleet.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/**
 * `macs status` at a hub: each host's link, agents (`<host>/<agent>`) and
 * open requests (`<host>/<id>`), as JSON (`remote` of `status --json`) and
 * as lines after this machine's.
 */
export async function readRemoteStatus(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
): Promise<{
  json: { hosts: (HostView & { line: string })[] };
  lines: string[];
}> {
  const hosts = await withRemoteFleet(ctx, config, deps, (fleet) =>
    readRemoteFleet(fleet, ctx.paths),
  );
  return {
    // Each host with its link in words (`line`), as `macs hosts --json`.
    json: { hosts: hosts.map(withLinkLine) },
    lines: formatHostLines(hosts),
  };
}

/** The hosts as lines after this machine's (`macs status` without a terminal). */
export function formatHostLines(hosts: readonly HostView[]): string[] {
  const lines = ['', `HOSTS (${hosts.length})`];
  for (const h of hosts) {
    // The link in the words of every door (remote/host-link.ts).
    lines.push(`  ${hostLinkLine(hostLink(h))}`);
    for (const a of h.agents)
      lines.push(
        `    ${a.name}  ${a.state}${a.paused ? ' paused' : ''}  pending ${a.pendingRequests.length}`,
      );
    for (const r of h.requests)
      lines.push(
        `    ${r.id}  ${r.type}  ${r.stage}  ${r.firstLine.slice(0, 60)}`,
      );
  }
  return lines;
}
