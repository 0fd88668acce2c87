/**
 * Pure: the hub's one model of its fleet, below every door (the CLI, the
 * live view, the page of `macs web`, the MCP tools). A host's agents and
 * requests in the shape of this machine's (`<host>/…` names, times on the
 * hub's clock, a request whole: body, attributes, context), merged after
 * this machine's; and the one rule of a host that cannot be reached: it
 * stays shown with what was last read of it, its agents' state `unknown`
 * ("<host> down since …": they live on there), its requests still
 * answerable (an answer is kept at the hub until it is back).
 */
import {
  RequestStageSchema,
  type AgentSnapshot,
  type RequestSnapshot,
  type Snapshot,
} from '../state/snapshot-schema.js';
import type { HostAgent, HostRequest } from './host-data.js';
import { ageSecSince } from './host-clock.js';
import { qualifyName } from './names.js';

/** An agent of a host, named `<host>/<agent>` at the hub; `stateSince` on the hub's clock. */
export interface RemoteAgent extends HostAgent {
  host: string;
  /** Its name on the host. */
  hostName: string;
}

/** A request of a host: `<host>/<id>` from `<host>/<agent>`; `detectedAt` on the hub's clock. */
export interface RemoteRequest extends HostRequest {
  host: string;
  hostId: string;
  /** Set while its host cannot be reached: since when (or null: not known). */
  hostDownSince?: string | null;
}

/** One host as every door shows it. */
export interface HostView {
  name: string;
  ssh: string;
  home: string;
  link: 'up' | 'down';
  /**
   * Since when the link is so, when a live link holder of the hub knows; for
   * a host that is down and no holder knows, when it was last reached.
   */
  since: string | null;
  version: string | null;
  rttMs: number | null;
  /** Hub time minus the host's, as measured at the last read (host-clock.ts). */
  clockOffsetMs: number | null;
  error: { kind: string; message: string; hint?: string } | null;
  /** Up: as read now. Down: as last read, marked (`downHostRows`). */
  agents: RemoteAgent[];
  requests: RemoteRequest[];
  /** Answers given at the hub, waiting for this host. */
  heldAnswers: number;
}

/** A host's agents (host names, times already on the hub's clock) named at the hub. */
export function qualifyAgents(
  host: string,
  agents: readonly HostAgent[],
  nowMs: number,
): RemoteAgent[] {
  return agents.map((a) => ({
    ...a,
    name: qualifyName(host, a.name),
    hostName: a.name,
    host,
    stateAgeSec: ageSecSince(a.stateSince ?? null, nowMs) ?? a.stateAgeSec,
    pendingRequests: a.pendingRequests.map((id) => qualifyName(host, id)),
  }));
}

/** A host's requests (times already on the hub's clock) named at the hub. */
export function qualifyRequests(
  host: string,
  requests: readonly HostRequest[],
  nowMs: number,
): RemoteRequest[] {
  return requests.map((r) => ({
    ...r,
    id: qualifyName(host, r.id),
    hostId: r.id,
    agent: qualifyName(host, r.agent),
    host,
    ageSec: ageSecSince(r.detectedAt ?? null, nowMs) ?? r.ageSec,
  }));
}

/**
 * How far a host's time may move between two reads and still be the same
 * time: each read measures the host's clock offset again (host-clock.ts),
 * and the times it corrects move with the measure's jitter (a few ms on a
 * quiet link, more on a busy one).
 */
export const HOST_TIME_JITTER_MS = 1_000;

/** Rows whose times come from a host's clock, with ages that move at every read. */
interface TimedRows {
  agents: readonly {
    stateSince?: string | null;
    stateAgeSec?: number | null;
  }[];
  requests: readonly { detectedAt?: string | null; ageSec?: number | null }[];
}

/**
 * Whether two reads of a host's rows say the same: the ages (which move at
 * every read) left out, and a time counted as moved only beyond
 * `HOST_TIME_JITTER_MS`.
 */
export function sameRows(a: TimedRows, b: TimedRows): boolean {
  const untimed = (rows: TimedRows) =>
    JSON.stringify({
      agents: rows.agents.map((x) => ({
        ...x,
        stateAgeSec: null,
        stateSince: null,
      })),
      requests: rows.requests.map((x) => ({
        ...x,
        ageSec: null,
        detectedAt: null,
      })),
    });
  const times = (rows: TimedRows) => [
    ...rows.agents.map((x) => x.stateSince ?? null),
    ...rows.requests.map((x) => x.detectedAt ?? null),
  ];
  if (untimed(a) !== untimed(b)) return false;
  const before = times(a);
  return times(b).every((at, i) => closeTimes(before[i] ?? null, at));
}

/**
 * Whether two reads of one host show the same: its rows (`sameRows`) and
 * its link, but for what moves at every read (the round trip, the clock
 * offset as measured). The doors draw again only when it is not (an idle
 * hub reads each host every half minute in case a change notice was lost;
 * each such read drew the whole view again, for nothing).
 */
export function sameHostRows(a: HostView, b: HostView): boolean {
  const link = (view: HostView) =>
    JSON.stringify({
      ...view,
      rttMs: null,
      clockOffsetMs: null,
      agents: null,
      requests: null,
    });
  return link(a) === link(b) && sameRows(a, b);
}

function closeTimes(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(Date.parse(a) - Date.parse(b)) <= HOST_TIME_JITTER_MS;
}

/**
 * "since 2026-11-29T10:02:03Z": a link's time as every door says it (to the
 * second, UTC), for a host down as for one up (remote/host-link.ts).
 */
export function sinceLabel(since: string): string {
  return `since ${since.slice(0, 19)}Z`;
}

/** "h1 down since 2026-11-29T10:02:03Z" (or "h1 down"). */
export function downLabel(host: string, since: string | null): string {
  return since ? `${host} down ${sinceLabel(since)}` : `${host} down`;
}

/**
 * What a host that cannot be reached shows: what was last read of it
 * (`kept`), its agents' state `unknown` named by the source, its requests
 * marked with `hostDownSince`; nothing when it was never read.
 */
export function downHostRows(
  host: string,
  kept:
    | { agents: readonly HostAgent[]; requests: readonly HostRequest[] }
    | undefined,
  since: string | null,
  nowMs: number,
): { agents: RemoteAgent[]; requests: RemoteRequest[] } {
  if (!kept) return { agents: [], requests: [] };
  return {
    agents: qualifyAgents(host, kept.agents, nowMs).map((a) => ({
      ...a,
      state: 'unknown',
      stateSource: downLabel(host, since),
    })),
    requests: qualifyRequests(host, kept.requests, nowMs).map((r) => ({
      ...r,
      hostDownSince: since,
    })),
  };
}

const PRIORITIES = new Set(['low', 'normal', 'high']);

function timeOr(at: string | null | undefined, nowMs: number): string {
  return at && Number.isFinite(Date.parse(at))
    ? at
    : new Date(nowMs).toISOString();
}

/** A host's agent in this machine's shape (what the host does not say is empty). */
export function hostAgentSnapshot(
  agent: RemoteAgent,
  requests: readonly RemoteRequest[],
  nowMs: number,
): AgentSnapshot {
  const stateSince = timeOr(agent.stateSince, nowMs);
  const own = requests.filter((r) => r.agent === agent.name);
  return {
    name: agent.name,
    preset: agent.preset ?? '',
    pane: agent.pane ?? null,
    state: agent.state,
    stateSource: agent.stateSource ?? `host ${agent.host}`,
    stateSince,
    stateAgeMs: Math.max(0, nowMs - Date.parse(stateSince)),
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
    updatedAt: new Date(nowMs).toISOString(),
  };
}

/** A host's open request in this machine's shape, whole. */
export function hostRequestSnapshot(
  request: RemoteRequest,
  nowMs: number,
): RequestSnapshot {
  const detectedAt = timeOr(request.detectedAt, nowMs);
  const down = request.hostDownSince !== undefined;
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
    detectedAt,
    ageMs: Math.max(0, nowMs - Date.parse(detectedAt)),
    firstLine: request.firstLine,
    body: request.body ?? request.firstLine,
    attributes: {
      ...(request.attributes ?? {}),
      host: request.host,
      ...(down
        ? { hostDown: downLabel(request.host, request.hostDownSince ?? null) }
        : {}),
    },
    context: request.context ?? null,
    answer: null,
    decision: null,
    waits: null,
  };
}

/** Those waiting for a person first, else in the order given. */
function byUrgency(requests: readonly RequestSnapshot[]): RequestSnapshot[] {
  return [
    ...requests.filter((r) => r.waitingForPerson),
    ...requests.filter((r) => !r.waitingForPerson),
  ];
}

/**
 * This machine's snapshot with every host's agents and requests after its
 * own (requests waiting for a person first); ages at `nowMs`.
 */
export function mergeHosts(
  snapshot: Snapshot,
  hosts: readonly HostView[],
  nowMs: number,
): Snapshot {
  if (hosts.length === 0) return snapshot;
  const agents = hosts.flatMap((h) =>
    h.agents.map((a) => hostAgentSnapshot(a, h.requests, nowMs)),
  );
  const requests = hosts.flatMap((h) =>
    h.requests.map((r) => hostRequestSnapshot(r, nowMs)),
  );
  return {
    ...snapshot,
    totals: {
      agents: snapshot.totals.agents + agents.length,
      pending: snapshot.totals.pending + requests.length,
      waitingForPerson:
        snapshot.totals.waitingForPerson +
        requests.filter((r) => r.waitingForPerson).length,
      paused: snapshot.totals.paused + agents.filter((a) => a.paused).length,
    },
    agents: [...snapshot.agents, ...agents],
    requests: byUrgency([...snapshot.requests, ...requests]),
  };
}
