/**
 * The one place `macs web` reads agents and requests from: the home's status
 * snapshot (from the change feed) made into the fleet the page shows, with
 * every host of the config (docs/remote.md) added as `<host>/<agent>` and
 * `<host>/<id>`; the actions find their agent and request through here too,
 * and a call about a host's agent or request goes to the host through the
 * forwarding `macs mcp` uses (operations/hub-tools.ts).
 */
import type { HomePaths } from '../home/paths.js';
import { createRemoteTools } from '../operations/hub-tools.js';
import type { RemoteTools } from '../operations/types.js';
import {
  readRemoteFleet,
  readRemoteHost,
  type HostView,
  type RemoteFleet,
} from '../remote/remote-fleet.js';
import { mergeHosts } from '../remote/fleet-model.js';
import { hostLink, hostLinkLine } from '../remote/host-link.js';
import type {
  AgentSnapshot,
  RequestSnapshot,
  Snapshot,
} from '../state/snapshot-schema.js';
import type { FleetView, HostSummary } from './messages.js';
import { buildRequestPaths } from './request-path.js';

/** The hosts of a hub as `macs web` uses them. */
export interface WebHosts {
  /** Each host now: link, version, round trip, its `<host>/…` agents and requests. */
  read: () => Promise<HostView[]>;
  /** One host now (after its change notice). */
  readHost?: (host: string) => Promise<HostView>;
  /**
   * Call `listener` with a host's name when it may have changed (its
   * change notice, its link up or down); returns the unsubscribe.
   */
  onChange?: (listener: (host: string) => void) => () => void;
  /** A tool call about `<host>/…`, answered by the host (undefined: a local name). */
  forward: RemoteTools['forward'];
  close: () => Promise<void>;
}

/** The hosts of a (live) remote fleet, for the page. */
export function createWebHosts(fleet: RemoteFleet, paths: HomePaths): WebHosts {
  const tools = createRemoteTools(fleet, paths);
  return {
    read: () => readRemoteFleet(fleet, paths),
    readHost: (host) => readRemoteHost(fleet, paths, host),
    onChange: (listener) => fleet.onChange(listener),
    forward: tools.forward,
    close: () => fleet.close(),
  };
}

/** A host's link for the page: the value and words of every door. */
function summarizeHost(host: HostView): HostSummary {
  const link = hostLink(host);
  return { ...link, line: hostLinkLine(link) };
}

/** The fleet of one snapshot and the hosts as last read. */
export function buildFleet(
  snapshot: Snapshot,
  options: { allowSend: boolean },
  hosts: readonly HostView[] = [],
): FleetView {
  // The hosts' rows merged by the hub's one model (remote/fleet-model.ts).
  const merged = mergeHosts(snapshot, hosts, Date.now());
  return {
    generatedAt: snapshot.generatedAt,
    home: snapshot.home,
    session: snapshot.session,
    totals: { ...merged.totals, agents: merged.agents.length },
    agents: merged.agents,
    requests: merged.requests,
    approvals: snapshot.approvals,
    events: [...snapshot.events].sort((a, b) => b.ts.localeCompare(a.ts)),
    paths: buildRequestPaths(snapshot.requests, snapshot.events),
    hosts: hosts.map(summarizeHost),
    allowSend: options.allowSend,
  };
}

/** An agent of the fleet by name (`<host>/<agent>` for a host's). */
export function findFleetAgent(
  fleet: FleetView | undefined,
  name: string,
): AgentSnapshot | undefined {
  return fleet?.agents.find((a) => a.name === name);
}

/** A pending request of the fleet by id (`<host>/<id>` for a host's). */
export function findFleetRequest(
  fleet: FleetView | undefined,
  id: string,
): RequestSnapshot | undefined {
  return fleet?.requests.find((r) => r.id === id);
}
