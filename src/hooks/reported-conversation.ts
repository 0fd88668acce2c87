/**
 * Pure: the conversation id a hook call reports (docs/session.md), read
 * from the agent's own hook input, never from its screen:
 *
 * - Claude Code: every hook's input carries `session_id` (and
 *   `transcript_path`, the file Claude keeps the conversation in);
 * - Codex CLI: the notify payload's `thread-id`, taken only for the
 *   person's own thread (Codex's rollout record says `thread_source:
 *   "user"`, codex-rollout.ts), never for a thread Codex runs for itself,
 *   and only once Codex has recorded it (otherwise it cannot be resumed).
 *
 * An id that is not a UUID is not taken.
 */
import type { CodexThreadInfo } from './codex-notify.js';
import { CODEX_NOTIFY_EVENT, codexThreadId } from './codex-notify.js';
import { parseHookInput, str } from './hook-input.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A transcript path longer than this is not kept. */
const TRANSCRIPT_MAX_CHARS = 4096;

export interface ReportedConversation {
  id: string;
  source: 'claude-hook' | 'codex-notify';
  transcript?: string;
}

export function conversationFromHook(
  event: string,
  raw: string,
  codexThread: CodexThreadInfo | undefined,
): ReportedConversation | undefined {
  if (event === CODEX_NOTIFY_EVENT) {
    const id = codexThreadId(raw);
    if (!id || !UUID.test(id)) return undefined;
    if (!codexThread?.recorded) return undefined;
    if (codexThread.source !== undefined && codexThread.source !== 'user')
      return undefined;
    return { id, source: 'codex-notify' };
  }
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return undefined;
  const id = str(parsed.value, 'session_id');
  if (!id || !UUID.test(id)) return undefined;
  const transcript = str(parsed.value, 'transcript_path');
  return {
    id,
    source: 'claude-hook',
    ...(transcript &&
    transcript.startsWith('/') &&
    transcript.length <= TRANSCRIPT_MAX_CHARS &&
    !transcript.includes('\0')
      ? { transcript }
      : {}),
  };
}
