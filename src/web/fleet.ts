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
  type HostView,
  type RemoteAgent,
  type RemoteFleet,
  type RemoteRequest,
} from '../remote/fleet.js';
import {
  RequestStageSchema,
  type AgentSnapshot,
  type RequestSnapshot,
  type Snapshot,
} from '../state/snapshot-schema.js';
import type { FleetView, HostSummary } from './messages.js';
import { buildRequestPaths } from './request-path.js';

/** The hosts of a hub as `macs web` uses them. */
export interface WebHosts {
  /** Each host now: link, version, round trip, its `<host>/…` agents and requests. */
  read: () => Promise<HostView[]>;
  /** A tool call about `<host>/…`, answered by the host (undefined: a local name). */
  forward: RemoteTools['forward'];
  close: () => Promise<void>;
}

/** The hosts of a (live) remote fleet, for the page. */
export function createWebHosts(fleet: RemoteFleet, paths: HomePaths): WebHosts {
  const tools = createRemoteTools(fleet, paths);
  return {
    read: () => readRemoteFleet(fleet, paths),
    forward: tools.forward,
    close: () => fleet.close(),
  };
}

/** Those waiting for a person first, then by priority and age (the snapshot's order). */
function byUrgency(requests: readonly RequestSnapshot[]): RequestSnapshot[] {
  return [...requests].sort(
    (a, b) => Number(b.waitingForPerson) - Number(a.waitingForPerson),
  );
}

const PRIORITIES = new Set(['low', 'normal', 'high']);

/** A host's agent in the page's shape (what the host does not say is empty). */
export function remoteAgentSnapshot(
  agent: RemoteAgent,
  requests: readonly RemoteRequest[],
  at: string,
): AgentSnapshot {
  const ageMs = Math.max(0, Math.round((agent.stateAgeSec ?? 0) * 1000));
  const own = requests.filter((r) => r.agent === agent.name);
  return {
    name: agent.name,
    preset: agent.preset ?? '',
    pane: agent.pane ?? null,
    state: agent.state,
    stateSource: agent.stateSource ?? `host ${agent.host}`,
    stateSince: new Date(Date.parse(at) - ageMs).toISOString(),
    stateAgeMs: ageMs,
    paused: agent.paused,
    bridge: { running: agent.bridgeRunning, pid: null },
    counts: {
      pending: agent.pendingRequests.length,
      waitingForPerson: own.filter((r) => r.waitingForAnswer).length,
      detected: 0,
      delivered: 0,
      duplicates: 0,
      malformed: 0,
    },
    lastRoundTripMs: null,
    lastResponse: null,
    hooks: null,
    exit: null,
    usage: null,
    updatedAt: at,
  };
}

/** A host's open request in the page's shape; its body is its first line. */
export function remoteRequestSnapshot(
  request: RemoteRequest,
  at: string,
): RequestSnapshot {
  const ageMs = Math.max(0, Math.round((request.ageSec ?? 0) * 1000));
  return {
    id: request.id,
    agent: request.agent,
    workerId: null,
    type: request.type,
    priority: PRIORITIES.has(request.priority ?? '')
      ? (request.priority as RequestSnapshot['priority'])
      : 'normal',
    stage: RequestStageSchema.catch('routed').parse(request.stage),
    backend: null,
    waitingForPerson: request.waitingForAnswer,
    detectedAt: new Date(Date.parse(at) - ageMs).toISOString(),
    ageMs,
    firstLine: request.firstLine,
    body: request.firstLine,
    attributes: { host: request.host, stage: request.stage },
    context: null,
    answer: null,
    decision: null,
    waits: null,
  };
}

function summarizeHost(host: HostView): HostSummary {
  return {
    name: host.name,
    link: host.link,
    since: host.since,
    version: host.version,
    rttMs: host.rttMs,
    error: host.error
      ? `${host.error.message}${host.error.hint ? ` (${host.error.hint})` : ''}`
      : null,
    agents: host.agents.length,
    requests: host.requests.length,
    heldAnswers: host.heldAnswers,
  };
}

/** The fleet of one snapshot and the hosts as last read. */
export function buildFleet(
  snapshot: Snapshot,
  options: { allowSend: boolean },
  hosts: readonly HostView[] = [],
): FleetView {
  const at = snapshot.generatedAt;
  const agents = [
    ...snapshot.agents,
    ...hosts.flatMap((h) =>
      h.agents.map((a) => remoteAgentSnapshot(a, h.requests, at)),
    ),
  ];
  const remoteRequests = hosts.flatMap((h) =>
    h.requests.map((r) => remoteRequestSnapshot(r, at)),
  );
  const requests = byUrgency([...snapshot.requests, ...remoteRequests]);
  return {
    generatedAt: snapshot.generatedAt,
    home: snapshot.home,
    session: snapshot.session,
    totals: {
      agents: agents.length,
      pending: snapshot.totals.pending + remoteRequests.length,
      waitingForPerson:
        snapshot.totals.waitingForPerson +
        remoteRequests.filter((r) => r.waitingForPerson).length,
      paused:
        snapshot.totals.paused +
        hosts.reduce((n, h) => n + h.agents.filter((a) => a.paused).length, 0),
    },
    agents,
    requests,
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
