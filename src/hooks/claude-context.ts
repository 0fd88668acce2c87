/**
 * Pure: what Claude Code's hooks say about the agent's work inside its pane,
 * beyond its state: the subagents it runs (SubagentStart, SubagentStop) and
 * the compaction of its context (PreCompact, then SessionStart with source
 * `compact`). Each handler records events and the activity lines that
 * `macs status` folds (state/agent-activity.ts); none changes the agent's
 * state: a subagent or a compaction runs inside the agent's own turn.
 *
 * Inputs, as Claude Code 2.1.197 sends them (read from its bundle):
 * SubagentStart `{agent_id, agent_type}`; SubagentStop `{agent_id,
 * agent_type, agent_transcript_path, last_assistant_message,
 * stop_hook_active}`; PreCompact `{trigger: "manual"|"auto",
 * custom_instructions}`; SessionStart `{source, agent_type, model}`.
 *
 * Codex CLI's hooks (codex-hooks.ts) send the same fields for these events
 * and are planned with the same handlers.
 */
import type { RequestRecord } from '../state/types.js';
import type { AgentStateFile } from '../state/types.js';
import { clip, hookEvent, str } from './hook-input.js';
import type { HookContext, HookPlan } from './types.js';

/** A subagent's id and kind from a SubagentStart or SubagentStop input. */
function subagentOf(input: Record<string, unknown>): {
  id: string;
  kind: string;
} {
  return {
    id: clip(str(input, 'agent_id') ?? 'unknown', 100),
    kind: clip(str(input, 'agent_type') || 'unknown', 100),
  };
}

export function planSubagentStart(input: Record<string, unknown>): HookPlan {
  const { id, kind } = subagentOf(input);
  return {
    events: [hookEvent('SubagentStart', input, { subagent: id, kind })],
    activity: [{ kind: 'subagent-start', id, type: kind }],
  };
}

/** A subagent finished: `subagent.stopped` with its kind. */
export function planSubagentStop(input: Record<string, unknown>): HookPlan {
  const { id, kind } = subagentOf(input);
  const session = str(input, 'session_id');
  return {
    events: [
      hookEvent('SubagentStop', input, { subagent: id, kind }),
      {
        type: 'subagent.stopped',
        data: { subagent: id, kind, ...(session ? { session } : {}) },
      },
    ],
    activity: [{ kind: 'subagent-stop', id, type: kind }],
  };
}

/**
 * The context is about to be compacted. Recorded, and its trigger kept in
 * the observation for the SessionStart that follows; the compaction is
 * counted when it is done (SessionStart `compact`), not here: one that
 * fails ("not enough messages") never happened.
 */
export function planPreCompact(input: Record<string, unknown>): HookPlan {
  const trigger = clip(str(input, 'trigger') ?? 'unknown', 20);
  return {
    observation: { trigger },
    events: [
      hookEvent('PreCompact', input, {
        trigger,
        instructionsChars: (str(input, 'custom_instructions') ?? '').length,
      }),
    ],
  };
}

/** At most this many open requests are recalled after a compaction. */
const RECALLED_REQUESTS = 10;

/** The worker's own requests still open: what it may be waiting for. */
function openRequestsOf(state: AgentStateFile | undefined): RequestRecord[] {
  return Object.values(state?.requests ?? {})
    .filter((r) => (r.origin ?? 'worker') === 'worker')
    .sort((a, b) => a.detectedAt.localeCompare(b.detectedAt))
    .slice(0, RECALLED_REQUESTS);
}

/**
 * What a compacted agent is told again, after the session context: that
 * its context was compacted, that the protocol still applies, and the
 * requests it asked that are still open (so an answer that comes later is
 * not a surprise, and it does not ask the same again).
 */
export function formatCompactionNote(
  role: 'worker' | 'controller',
  state: AgentStateFile | undefined,
): string {
  if (role === 'controller')
    return 'Your context was just compacted; you are still the controller of the workers macs supervises.';
  const lines = [
    'Your context was just compacted. The protocol above still applies: when you need a decision, print a request block and stop.',
  ];
  const open = openRequestsOf(state);
  if (open.length > 0) {
    lines.push(
      '',
      'Your requests still open (their answers come as your next input; do not ask them again):',
    );
    for (const r of open) {
      const first = r.body.split('\n').find((l) => l.trim()) ?? '';
      lines.push(
        `- ${r.workerId ?? r.id} (${r.type}, ${r.stage}): ${clip(first.trim(), 120)}`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * What a compacted agent gets back as context: the session context it was
 * given at the start (`sessionContext`), then the note. Claude Code's and
 * Codex's SessionStart with source `compact` both reply with it.
 */
export function compactedContext(
  sessionContext: string,
  ctx: HookContext,
): string {
  return `${sessionContext}\n\n${formatCompactionNote(ctx.role ?? 'worker', ctx.agentState)}`;
}

/**
 * A compaction is done: `context.compacted` and the activity line that
 * counts it (state/agent-activity.ts). `trigger`: manual, auto or unknown.
 */
export function compactionDone(
  trigger: string,
  session: string | undefined,
): Pick<HookPlan, 'events' | 'activity'> {
  return {
    events: [
      {
        type: 'context.compacted',
        data: { trigger, ...(session ? { session } : {}) },
      },
    ],
    activity: [{ kind: 'compacted', trigger }],
  };
}
