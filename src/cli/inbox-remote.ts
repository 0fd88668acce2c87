/**
 * `macs inbox` at a hub (docs/remote.md): its hosts' open requests as lines
 * and as JSON entries with `host`, and a line per host that cannot be
 * reached. Pure rendering of operations/list-inbox.ts's value.
 */
import { downLabel } from '../remote/fleet-model.js';
import type { HostsInbox } from '../operations/list-inbox.js';
import { formatAge } from './common.js';

/** A host's request body in `macs inbox`: this many lines at most. */
const BODY_LINES = 20;

type HostRequest = HostsInbox['requests'][number];

/** A host's request whole: its line, its body, and its host's link if down. */
function hostRequestLines(r: HostRequest, now: number): string[] {
  const age = r.detectedAt
    ? formatAge(r.detectedAt, now)
    : `${Math.round(r.ageSec ?? 0)}s`;
  const body = (r.body ?? r.firstLine).split('\n');
  const rest = body.slice(1, BODY_LINES);
  return [
    `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${age}  ${(body[0] ?? '').slice(0, 72)}`,
    ...rest.map((l) => `    ${l}`),
    ...(body.length > BODY_LINES
      ? [
          `    … ${body.length - BODY_LINES} more lines (macs mcp get_request ${r.id})`,
        ]
      : []),
    ...(r.hostDownSince !== undefined
      ? [
          `    ${downLabel(r.host, r.hostDownSince)}: an answer is kept and delivered once when it is back`,
        ]
      : []),
  ];
}

/** The hosts' requests as lines (a host that cannot be reached: marked). */
export function formatHostRequests(hosts: HostsInbox | undefined): string[] {
  const now = Date.now();
  return (hosts?.requests ?? []).flatMap((r) => hostRequestLines(r, now));
}

/** The hosts' requests as `macs inbox --json` entries. */
export function hostRequestsJson(hosts: HostsInbox | undefined): unknown[] {
  return (hosts?.requests ?? []).map((r) => ({
    id: r.id,
    agent: r.agent,
    host: r.host,
    type: r.type,
    priority: r.priority ?? 'normal',
    stage: r.stage,
    waitingForAnswer: r.waitingForAnswer,
    detectedAt: r.detectedAt ?? null,
    ageSec: r.ageSec ?? null,
    firstLine: r.firstLine,
    body: r.body ?? r.firstLine,
    attributes: r.attributes ?? {},
    context: r.context ?? null,
    hostDown:
      r.hostDownSince !== undefined ? { since: r.hostDownSince ?? null } : null,
  }));
}

/** A line per host that cannot be reached (for stderr). */
export function hostProblems(hosts: HostsInbox | undefined): string[] {
  return (hosts?.down ?? []).map(
    (v) =>
      `macs: ${v.error?.message ?? `host ${v.name} cannot be reached`}${v.error?.hint ? ` (hint: ${v.error.hint})` : ''}`,
  );
}
