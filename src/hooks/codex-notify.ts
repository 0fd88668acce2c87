/**
 * Pure: Codex CLI's `notify` program. Codex runs the configured program with
 * one extra argument, a JSON object such as
 * `{"type":"agent-turn-complete","thread-id":…,"turn-id":…,"cwd":…,
 * "client":…,"input-messages":[…],"last-assistant-message":…}`, and reads
 * nothing back (docs/hooks.md). A finished turn of the agent's own thread
 * means the agent is idle again.
 *
 * Codex also runs threads of its own beside the one the person talks to:
 * 0.169.0 asks the model for a thread title in a separate one-turn thread
 * for every prompt, and `notify` runs for that thread's turn too (with its
 * own `thread-id`), often before the main turn ends. Such a notification
 * must not mark a busy agent idle. Which thread a notification is for is
 * read from Codex's record of the thread (its rollout file, see
 * codex-rollout.ts): the person's threads say `thread_source: "user"`;
 * auxiliary threads say something else, or are not recorded at all.
 */
import { errorPlan, parseHookInput } from './hook-input.js';
import type { HookPlan } from './types.js';

/** The event name `macs hook` is called with for Codex's notify program. */
export const CODEX_NOTIFY_EVENT = 'notify';

/**
 * What Codex's records say about a notification's thread:
 * - `undefined`: nothing known (no thread id, or no session records to
 *   look in): the notification is taken as the agent's own;
 * - `{ recorded: false }`: Codex keeps session records, but none for this
 *   thread (an ephemeral thread, such as a title thread);
 * - `{ recorded: true, source }`: the thread's recorded `thread_source`
 *   (`undefined` when the record has none, as older versions write).
 */
export type CodexThreadInfo =
  { recorded: false } | { recorded: true; source?: string };

/** The `thread-id` of a notify payload, when it has one. */
export function codexThreadId(raw: string): string | undefined {
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return undefined;
  const id = parsed.value['thread-id'];
  return typeof id === 'string' && id ? id : undefined;
}

/** Is the notification for a thread other than the person's own? */
export function isAuxiliaryThread(info: CodexThreadInfo | undefined): boolean {
  if (!info) return false;
  if (!info.recorded) return true;
  return info.source !== undefined && info.source !== 'user';
}

export function planCodexNotify(
  raw: string,
  thread?: CodexThreadInfo,
): HookPlan {
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return errorPlan(CODEX_NOTIFY_EVENT, parsed.error);
  const input = parsed.value;
  const type = typeof input.type === 'string' ? input.type : 'unknown';
  const text = (key: string) =>
    typeof input[key] === 'string' ? input[key] : undefined;
  const data: Record<string, unknown> = { type };
  const threadId = text('thread-id');
  const turn = text('turn-id');
  if (threadId) data.session = threadId;
  if (turn) data.turn = turn;
  const last = text('last-assistant-message');
  if (last !== undefined) data.chars = last.length;
  const auxiliary = isAuxiliaryThread(thread);
  if (auxiliary) {
    // Recorded for the log, but it says nothing about the agent's state.
    data.auxiliary = true;
    if (thread?.recorded && thread.source) data.threadSource = thread.source;
  }
  return {
    ...(type === 'agent-turn-complete' && !auxiliary
      ? { observation: { state: 'idle' as const, consecutiveBlocks: 0 } }
      : {}),
    events: [{ type: `hook.${CODEX_NOTIFY_EVENT}`, data }],
  };
}
