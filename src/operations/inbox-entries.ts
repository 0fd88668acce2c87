/**
 * `macs inbox --json` (docs/commands.md): the inbox of operations/
 * list-inbox.ts as one array of plain entries for scripts.
 */
import type { HostsInbox, Inbox } from './list-inbox.js';

/** The hosts' requests as `macs inbox --json` entries. */
function hostEntries(hosts: HostsInbox | undefined): unknown[] {
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

/**
 * An array of the open requests, as it always was, then the incomplete
 * blocks (`stage: "incomplete"`, no id: not raised yet) and the refused
 * ones (`stage: "refused"`, no id: never raised), so scripts reading
 * requests by id keep working and can still see them.
 */
export function inboxEntries(inbox: Inbox): unknown[] {
  return [
    ...inbox.open.map(({ request: r }) => ({
      id: r.id,
      agent: r.agent,
      type: r.type,
      priority: r.priority,
      stage: r.stage,
      backend: r.backend ?? null,
      detectedAt: r.detectedAt,
      body: r.body,
      attributes: r.attributes,
    })),
    ...hostEntries(inbox.hosts),
    ...inbox.incomplete.map((r) => ({
      id: null,
      agent: r.agent,
      stage: 'incomplete',
      reason: r.reason,
      detectedAt: r.since,
      firstLine: r.firstLine,
      head: r.head,
      lines: r.lines,
      willBe: r.requestId,
      message: r.message,
    })),
    ...inbox.refused.map((r) => ({
      id: null,
      agent: r.agent,
      stage: 'refused',
      reason: r.reason,
      detectedAt: r.at,
      firstLine: r.firstLine,
      lines: r.lines,
      bytes: r.bytes,
      message: r.message,
    })),
  ];
}
