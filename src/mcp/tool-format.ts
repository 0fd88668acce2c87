/**
 * How the tools of `macs mcp` show agents and requests: pure functions from
 * the status snapshot's records to a tool's text (one line each, or a
 * request in full, for the model) and its structured data (for programs).
 * The field names of the data are part of the tools' contract (docs/mcp.md).
 */
import type {
  AgentSnapshot,
  RequestSnapshot,
} from '../state/snapshot-schema.js';
import { formatUsageCell } from '../usage/usage-format.js';

/** A request's data in a list: what it is, where it stands, its first line. */
export function requestSummary(r: RequestSnapshot): Record<string, unknown> {
  return {
    id: r.id,
    agent: r.agent,
    type: r.type,
    stage: r.stage,
    priority: r.priority,
    waitingForAnswer: r.waitingForPerson,
    backend: r.backend,
    ageSec: Math.round(r.ageMs / 1000),
    detectedAt: r.detectedAt,
    firstLine: r.firstLine,
  };
}

/**
 * A request's data in a list asked for `full` (a hub's read of its host,
 * docs/remote.md): the summary with its body, attributes and context.
 */
export function requestWhole(r: RequestSnapshot): Record<string, unknown> {
  return {
    ...requestSummary(r),
    body: r.body,
    attributes: r.attributes,
    context: r.context,
  };
}

/** A request as one line of `list_requests`. */
export function requestLine(r: RequestSnapshot): string {
  return `${r.id}  agent=${r.agent} type=${r.type} stage=${r.stage}${r.waitingForPerson ? ' (waiting for an answer)' : ''} age=${Math.round(r.ageMs / 1000)}s: ${r.firstLine}`;
}

/** A request's data in full: the summary, its body, context and answer. */
export function requestDetail(r: RequestSnapshot): Record<string, unknown> {
  return {
    ...requestSummary(r),
    workerId: r.workerId,
    body: r.body,
    attributes: r.attributes,
    context: r.context,
    answer: r.answer,
  };
}

/** A request in full, as text: a heading, its body, context and answer. */
export function requestText(r: RequestSnapshot): string {
  const lines = [
    `request ${r.id} from ${r.agent} (type ${r.type}, priority ${r.priority}, stage ${r.stage}${r.waitingForPerson ? ', waiting for an answer' : ''})`,
    '',
    r.body,
  ];
  if (r.context !== null)
    lines.push('', 'context:', JSON.stringify(r.context, null, 2));
  if (r.answer)
    lines.push('', `answer (${r.answer.stage}):`, r.answer.instructions);
  return lines.join('\n');
}

/** An agent's data in `list_agents`, with the ids of its pending requests. */
export function agentSummary(
  a: AgentSnapshot,
  requests: readonly RequestSnapshot[],
): Record<string, unknown> {
  return {
    name: a.name,
    preset: a.preset,
    state: a.state,
    stateSource: a.stateSource,
    stateAgeSec: Math.round(a.stateAgeMs / 1000),
    stateSince: a.stateSince,
    pane: a.pane,
    paused: a.paused,
    bridgeRunning: a.bridge.running,
    pendingRequests: requests
      .filter((r) => r.agent === a.name)
      .map((r) => r.id),
    // Tokens and cost this session (docs/usage.md); null: none recorded.
    usage: a.usage,
    // A Claude Code teammate: its lead, name, `<lead>/<teammate>`, team.
    teammate: a.teammate ?? null,
  };
}

/** An agent as one line of `list_agents`. */
export function agentLine(
  a: AgentSnapshot,
  requests: readonly RequestSnapshot[],
): string {
  const pending = requests.filter((r) => r.agent === a.name);
  const teammate = a.teammate ? `teammate=${a.teammate.shownAs} ` : '';
  return `${a.name}  ${teammate}preset=${a.preset} state=${a.state} (from ${a.stateSource}) pane=${a.pane ?? '-'}${a.paused ? ' paused' : ''}${a.bridge.running ? '' : ' bridge-down'} pending=${pending.length === 0 ? '-' : pending.map((r) => r.id).join(',')} usage=${formatUsageCell(a.usage)}`;
}
