/**
 * Pure: a host's agent and request as lines of `list_agents` and
 * `list_requests` at a hub (names are `<host>/…`; the fields were checked
 * by remote/host-data.ts).
 */
import type { RemoteAgent, RemoteRequest } from '../remote/remote-fleet.js';
import { downLabel } from '../remote/fleet-model.js';

export function remoteAgentLine(a: RemoteAgent): string {
  return `${a.name}  preset=${a.preset ?? '-'} state=${a.state} host=${a.host} pane=${a.pane ?? '-'}${a.paused ? ' paused' : ''}${a.bridgeRunning ? '' : ' bridge-down'} pending=${a.pendingRequests.length === 0 ? '-' : a.pendingRequests.join(',')}`;
}

export function remoteRequestLine(r: RemoteRequest): string {
  const down =
    r.hostDownSince !== undefined
      ? ` (${downLabel(r.host, r.hostDownSince)}: an answer is kept until it is back)`
      : '';
  return `${r.id}  agent=${r.agent} type=${r.type} stage=${r.stage}${r.waitingForAnswer ? ' (waiting for an answer)' : ''} age=${Math.round(r.ageSec ?? 0)}s${down}: ${r.firstLine}`;
}

/** A host's request in the data of `list_requests` at a hub: whole but its context (get_request has it). */
export function remoteRequestSummary(
  r: RemoteRequest,
): Record<string, unknown> {
  const { context: _context, ...rest } = r;
  return rest;
}
