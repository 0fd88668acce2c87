/**
 * The one place `macs web` reads agents and requests from: the home's status
 * snapshot (from the change feed) made into the fleet the page shows. Other
 * hosts' agents, once macs has them, are added here as `<host>/<agent>`;
 * the actions find their agent and request through here too.
 */
import type {
  AgentSnapshot,
  RequestSnapshot,
  Snapshot,
} from '../state/snapshot-schema.js';
import type { FleetView } from './messages.js';
import { buildRequestPaths } from './request-path.js';

/** Those waiting for a person first, then by priority and age (the snapshot's order). */
function byUrgency(requests: readonly RequestSnapshot[]): RequestSnapshot[] {
  return [...requests].sort(
    (a, b) => Number(b.waitingForPerson) - Number(a.waitingForPerson),
  );
}

/** The fleet of one snapshot. */
export function buildFleet(
  snapshot: Snapshot,
  options: { allowSend: boolean },
): FleetView {
  return {
    generatedAt: snapshot.generatedAt,
    home: snapshot.home,
    session: snapshot.session,
    totals: snapshot.totals,
    agents: snapshot.agents,
    requests: byUrgency(snapshot.requests),
    approvals: snapshot.approvals,
    events: [...snapshot.events].sort((a, b) => b.ts.localeCompare(a.ts)),
    paths: buildRequestPaths(snapshot.requests, snapshot.events),
    allowSend: options.allowSend,
  };
}

/** An agent of the fleet by name. */
export function findFleetAgent(
  fleet: FleetView | undefined,
  name: string,
): AgentSnapshot | undefined {
  return fleet?.agents.find((a) => a.name === name);
}

/** A pending request of the fleet by id. */
export function findFleetRequest(
  fleet: FleetView | undefined,
  id: string,
): RequestSnapshot | undefined {
  return fleet?.requests.find((r) => r.id === id);
}
