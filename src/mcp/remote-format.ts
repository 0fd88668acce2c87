/**
 * Pure: a host's agent and request as lines of `list_agents` and
 * `list_requests` at a hub (names are `<host>/…`; the fields were checked
 * by remote/host-data.ts).
 */
import type { RemoteAgent, RemoteRequest } from '../remote/fleet.js';

export function remoteAgentLine(a: RemoteAgent): string {
  return `${a.name}  preset=${a.preset ?? '-'} state=${a.state} host=${a.host} pane=${a.pane ?? '-'}${a.paused ? ' paused' : ''}${a.bridgeRunning ? '' : ' bridge-down'} pending=${a.pendingRequests.length === 0 ? '-' : a.pendingRequests.join(',')}`;
}

export function remoteRequestLine(r: RemoteRequest): string {
  return `${r.id}  agent=${r.agent} type=${r.type} stage=${r.stage}${r.waitingForAnswer ? ' (waiting for an answer)' : ''} age=${Math.round(r.ageSec ?? 0)}s: ${r.firstLine}`;
}
