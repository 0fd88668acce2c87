/**
 * Pure: Codex CLI's lifecycle hooks, beside its `notify` program (codex-notify.ts).
 * Codex 0.169.0 runs a command hook with the event's JSON on stdin and reads
 * a JSON object from its stdout, as Claude Code does, with the same field
 * names (its schemas, `codex-rs/hooks`): SessionStart `{session_id, source:
 * startup|resume|clear|compact|fork, model}`; PreCompact and PostCompact
 * `{session_id, turn_id, trigger: manual|auto}`; SubagentStart `{agent_id,
 * agent_type}`; SubagentStop `{agent_id, agent_type, last_assistant_message,
 * …}`. macs installs these five (docs/hooks.md); the agent's state still
 * comes from `notify` and the screen.
 *
 * A compaction is counted at PostCompact, which Codex runs only after a
 * compaction succeeded. PostCompact cannot add context (its output has no
 * `additionalContext`); the SessionStart with source `compact` that Codex
 * queues after it can, and Codex adds it to the conversation before the
 * next model call: that reply carries the protocol again. The handlers and
 * the note are Claude Code's (claude-context.ts).
 */
import {
  compactedContext,
  compactionDone,
  planPreCompact,
  planSubagentStart,
  planSubagentStop,
} from './claude-context.js';
import { formatSessionContext } from './claude-hook-protocol.js';
import {
  clip,
  errorPlan,
  hookEvent,
  parseHookInput,
  str,
} from './hook-input.js';
import type { HookContext, HookPlan } from './types.js';

/** The Codex events macs installs hooks for (in `.macs/codex/<agent>/hooks.json`). */
export const CODEX_HOOK_EVENTS = [
  'SessionStart',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
] as const;
export type CodexHookEvent = (typeof CODEX_HOOK_EVENTS)[number];

/**
 * SessionStart: the session context (the request protocol for a worker),
 * as Claude Code gets it: a Codex worker has no first message
 * (session/plan.ts, `wantsPrompt`). Codex runs it when the thread's first
 * turn starts, and again (source `compact`) after a compaction, when the
 * note follows the context.
 */
function planCodexSessionStart(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  const source = clip(str(input, 'source') ?? 'unknown', 20);
  const context = formatSessionContext(
    ctx.agent,
    ctx.workerPrompt,
    ctx.role ?? 'worker',
  );
  return {
    reply: {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext:
          source === 'compact' ? compactedContext(context, ctx) : context,
      },
    },
    events: [hookEvent('SessionStart', input, { source })],
    // A compaction goes on in the same conversation; anything else is a
    // new one: the subagents of the old one are over.
    ...(source === 'compact'
      ? {}
      : { activity: [{ kind: 'session', source }] }),
  };
}

/** PostCompact: the compaction is done; counted here. */
function planCodexPostCompact(input: Record<string, unknown>): HookPlan {
  const trigger = clip(str(input, 'trigger') ?? 'unknown', 20);
  const done = compactionDone(trigger, str(input, 'session_id'));
  return {
    events: [hookEvent('PostCompact', input, { trigger }), ...done.events],
    ...(done.activity ? { activity: done.activity } : {}),
  };
}

/**
 * Plan the answer to one Codex hook call. None of them changes the agent's
 * state or leaves an observation: `notify` and the screen say the state,
 * and an observation rewritten here would make a stale state look fresh.
 */
export function planCodexHook(
  event: string,
  raw: string,
  ctx: HookContext,
): HookPlan {
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return errorPlan(event, parsed.error);
  const input = parsed.value;
  switch (event) {
    case 'SessionStart':
      return planCodexSessionStart(input, ctx);
    case 'PreCompact': {
      // The trigger comes again with PostCompact: nothing to keep.
      const { observation: _kept, ...plan } = planPreCompact(input);
      return plan;
    }
    case 'PostCompact':
      return planCodexPostCompact(input);
    case 'SubagentStart':
      return planSubagentStart(input);
    case 'SubagentStop':
      return planSubagentStop(input);
    default:
      return { events: [hookEvent(event, input, {})] };
  }
}
