/**
 * Pure: Claude Code's Stop and StopFailure hooks, the end of a turn. A Stop
 * hook is where macs hands a queued answer from the controller to a Claude
 * Code agent that is about to go idle: its reply continues the turn with
 * the answer, so nothing is typed into the pane. The cap on Stop hooks in
 * a row keeps an agent from being held in a turn forever. A StopFailure
 * (the turn ended on an API error) only marks the agent `error`.
 */
import { sanitizeText } from '../protocol/sanitize.js';
import { isTypedAnswer, type RequestRecord } from '../state/types.js';
import { clip, hookEvent, str } from './hook-input.js';
import type { HookContext, HookPlan } from './types.js';

/**
 * Stop hooks in a row that may hand over a queued answer before macs lets
 * the agent stop (Claude Code itself gives up after more; docs/hooks.md).
 */
export const STOP_BLOCK_CAP = 3;

/** The answer a Stop hook may hand over: the oldest answered one not taken. */
export function nextQueuedAnswer(ctx: HookContext): RequestRecord | undefined {
  if (ctx.paused || !ctx.agentState) return undefined;
  return Object.values(ctx.agentState.requests)
    .filter(
      (r) =>
        r.stage === 'answered' &&
        isTypedAnswer(r) &&
        !ctx.unavailable.has(r.id) &&
        sanitizeText(r.response?.instructions ?? '').trim() !== '',
    )
    .sort(
      (a, b) =>
        (a.answeredAt ?? '').localeCompare(b.answeredAt ?? '') ||
        a.detectedAt.localeCompare(b.detectedAt),
    )[0];
}

/** The block reason that hands an answer to the agent instead of typing it. */
export function formatStopReason(record: RequestRecord): string {
  const instructions = sanitizeText(record.response?.instructions ?? '')
    .replace(/\n+$/, '')
    .trim();
  return `The controller answered your request ${record.workerId ?? record.id}:\n\n${instructions}`;
}

/**
 * The reply that makes Claude Code go on with the controller's answer. Not
 * `{"decision":"block","reason":…}`: Claude Code 2.1 shows every block as
 * "Stop hook error: …" (anthropics/claude-code#12667, #22761). A Stop hook's
 * `additionalContext` continues the turn the same way (under the same cap,
 * the next Stop has `stop_hook_active: true`), is shown as "Stop hook
 * feedback: …" and reaches the model as "Stop hook additional context: …";
 * measured with the real Claude Code 2.1.197 (test/agents/claude.agents.test.ts).
 */
export function stopContinuation(text: string): Record<string, unknown> {
  return {
    hookSpecificOutput: { hookEventName: 'Stop', additionalContext: text },
  };
}

/** Stop: hand the next queued answer over, or let the agent go idle. */
export function planStop(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  const active = input.stop_hook_active === true;
  // A new chain of stops starts whenever Claude Code says no Stop hook is active.
  const blocks = active ? (ctx.previous?.consecutiveBlocks ?? 0) : 0;
  const capped = blocks >= STOP_BLOCK_CAP;
  const next = capped ? undefined : nextQueuedAnswer(ctx);
  if (!next) {
    return {
      observation: { state: 'idle', consecutiveBlocks: 0 },
      events: [
        hookEvent('Stop', input, {
          stopHookActive: active,
          ...(capped ? { capped: true, blocks } : {}),
        }),
      ],
    };
  }
  return {
    claim: next.id,
    reply: stopContinuation(formatStopReason(next)),
    observation: {
      state: 'working',
      delivered: next.id,
      consecutiveBlocks: blocks + 1,
    },
    events: [
      hookEvent(
        'Stop',
        input,
        { stopHookActive: active, delivered: true, blocks: blocks + 1 },
        next.id,
      ),
    ],
  };
}

/**
 * A turn ended on an API error: Claude Code runs StopFailure instead of Stop,
 * with `error` (the kind, e.g. `server_error`) and `error_details` or
 * `last_assistant_message` (the message). The agent waits for a person: `error`, with the text kept in
 * the event. Nothing is handed over (Claude Code ignores its output).
 */
export function planStopFailure(input: Record<string, unknown>): HookPlan {
  const error = str(input, 'error') ?? 'unknown';
  // 2.1.197 sends `error_details` for some errors only; the message it
  // printed (`API Error: …`) is the last assistant message.
  const details =
    str(input, 'error_details') ?? str(input, 'last_assistant_message') ?? '';
  return {
    observation: { state: 'error', consecutiveBlocks: 0 },
    events: [
      hookEvent('StopFailure', input, {
        error: clip(error),
        ...(details ? { message: clip(details) } : {}),
      }),
    ],
  };
}
