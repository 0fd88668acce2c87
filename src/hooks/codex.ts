/**
 * Pure: Codex CLI's `notify` program. Codex runs the configured program with
 * one extra argument, a JSON object such as
 * `{"type":"agent-turn-complete","thread-id":…,"turn-id":…,"cwd":…,
 * "input-messages":[…],"last-assistant-message":…}`, and reads nothing back
 * (docs/hooks.md). A finished turn means the agent is idle again.
 */
import { errorPlan, parseHookInput } from './claude.js';
import type { HookPlan } from './types.js';

/** The event name `macs hook` is called with for Codex's notify program. */
export const CODEX_NOTIFY_EVENT = 'notify';

export function planCodexNotify(raw: string): HookPlan {
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return errorPlan(CODEX_NOTIFY_EVENT, parsed.error);
  const input = parsed.value;
  const type = typeof input.type === 'string' ? input.type : 'unknown';
  const text = (key: string) =>
    typeof input[key] === 'string' ? input[key] : undefined;
  const data: Record<string, unknown> = { type };
  const thread = text('thread-id');
  const turn = text('turn-id');
  if (thread) data.session = thread;
  if (turn) data.turn = turn;
  const last = text('last-assistant-message');
  if (last !== undefined) data.chars = last.length;
  return {
    ...(type === 'agent-turn-complete'
      ? { observation: { state: 'idle' as const, consecutiveBlocks: 0 } }
      : {}),
    events: [{ type: `hook.${CODEX_NOTIFY_EVENT}`, data }],
  };
}
