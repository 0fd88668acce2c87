/**
 * The event log's vocabulary (SPEC §7). One JSON object a line in
 * `.macs/events/<agent>.jsonl`.
 */
export const EVENT_TYPES = [
  'request.detected',
  'request.duplicate',
  'request.malformed',
  'request.incomplete',
  'request.incomplete-cleared',
  'request.attribute-dropped',
  'request.routed',
  'request.answered',
  'request.answered-empty',
  'request.delivering',
  'request.delivered',
  'request.confirmed',
  'request.unconfirmed',
  'request.archived',
  'request.expired',
  'request.limited',
  'request.dismissed',
  'request.failed',
  'request.fallback',
  'request.queued',
  'request.step-refused',
  'exec.started',
  'exec.finished',
  'controller.sent',
  'controller.ignored',
  'delivery.waiting',
  'delivery.timeout',
  'delivery.unconfirmed',
  'delivery.paused',
  'delivery.resumed',
  'delivery.held',
  'send.delivered',
  'send.failed',
  'mcp.call',
  'web.action',
  'outbox.ignored',
  'state.changed',
  'state.disagreement',
  'hooks.active',
  'hooks.inactive',
  'capture.started',
  'capture.truncated',
  'capture.replaced',
  'capture.rotated',
  'session.started',
  'session.stopped',
  'session.resumed',
  'agent.prompted',
  'agent.prompt-kept',
  'agent.exited',
  'agent.added',
  'agent.restarted',
  'agent.resumed',
  'preset.changed',
  'conversation.recorded',
  'subagent.stopped',
  'context.compacted',
  // Claude Code teammates adopted as agents (docs/hooks.md#agent-teams).
  'teammate.adopted',
  'teammate.ended',
  'bridge.started',
  'bridge.resumed',
  'bridge.stopped',
  'attention',
  // Appeals and unattended runs (docs/hooks.md#appeals, docs/unattended.md).
  'appeal.overturned',
  'appeal.upheld',
  'denials.repeated',
  'merge.done',
  'merge.conflict',
  'usage.budget',
  'warning',
  'error',
] as const;

export type KnownEventType = (typeof EVENT_TYPES)[number];

/** Hook events are `hook.<event>` (e.g. `hook.Stop`). */
export type EventType = KnownEventType | `hook.${string}`;

export interface MacsEvent {
  ts: string;
  agent: string;
  type: EventType;
  requestId?: string;
  data?: Record<string, unknown>;
}

/** What a caller gives to record an event; the log stamps `ts`. */
export type EventInput = Omit<MacsEvent, 'ts'> & { ts?: string };

export function isMacsEvent(value: unknown): value is MacsEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.ts === 'string' &&
    typeof v.agent === 'string' &&
    typeof v.type === 'string'
  );
}
