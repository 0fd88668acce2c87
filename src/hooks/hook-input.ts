/**
 * Pure: a hook's JSON input and the events a handler records from it. Claude
 * Code passes the event's JSON on stdin, Codex as an argument; both are one
 * JSON object, read here the same way, and a handler records an input it
 * cannot read as an `error` event. The small readers (`str`, `record`,
 * `clip`, `hookEvent`) are shared by the Claude Code handlers, which each
 * take only the fields they know and never trust a field's type.
 */
import type { HookEventRecord, HookPlan } from './types.js';

/** Longest text of a subject or message copied into an event. */
const EVENT_TEXT_CHARS = 200;

export type ParsedHookInput =
  { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Parse a hook's stdin: one JSON object. Empty or anything else is an error. */
export function parseHookInput(raw: string): ParsedHookInput {
  if (!raw.trim()) return { ok: false, error: 'empty input' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      error: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'not a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** A string field of the input, or undefined when absent or not a string. */
export function str(
  input: Record<string, unknown>,
  key: string,
): string | undefined {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
}

/** An object field of the input; `{}` when absent or not an object. */
export function record(
  input: Record<string, unknown>,
  key: string,
): Record<string, unknown> {
  const value = input[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Text cut to `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max = EVENT_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The `hook.<event>` event a handler records, with the input's session. */
export function hookEvent(
  event: string,
  input: Record<string, unknown>,
  data: Record<string, unknown>,
  requestId?: string,
): HookEventRecord {
  const session = str(input, 'session_id');
  return {
    type: `hook.${event}`,
    ...(requestId ? { requestId } : {}),
    data: { ...(session ? { session } : {}), ...data },
  };
}

/** A plan that only records an `error` event (bad input): no reply, no state. */
export function errorPlan(event: string, message: string): HookPlan {
  return {
    events: [{ type: 'error', data: { where: 'hook', event, message } }],
  };
}
