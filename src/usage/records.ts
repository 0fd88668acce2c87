/**
 * Pure: the usage an agent's own record line tells (docs/usage.md, "what
 * each agent reports"). One reader per agent, each validating the line with
 * zod and taking only the fields it knows; anything else is `undefined`
 * (a line of another kind, or one this version of the agent writes
 * differently), never a guess.
 *
 * - Claude Code's transcript (`<config>/projects/<folder>/<session>.jsonl`):
 *   an `assistant` line per content block of a model answer, each with the
 *   answer's `message.id`, `model` and `usage` (the last line of an answer
 *   has its final figures);
 * - Codex's rollout (`$CODEX_HOME/sessions/…/rollout-….jsonl`): a
 *   `turn_context` line names the model of the turns after it; 0.169 writes
 *   a `token_usage_record` per model answer (`response_id`, `usage`), and
 *   every version an `event_msg` of type `token_count` with the thread's
 *   running total (`info.total_token_usage`), used only in a file without
 *   per-answer records (account.ts); input counts the cached part;
 * - Gemini CLI's session file (`~/.gemini/tmp/<project>/chats/session-….jsonl`):
 *   a message line per change of a message (the same `id` again when it
 *   grows); a `gemini` message has the `model` and, once its answer is
 *   complete, `tokens` (`input` counts the cached part; `thoughts` and
 *   `tool` are apart).
 */
import * as z from 'zod';
import type { UsageFigures } from './types.js';

/** A line's usage: one answer's figures (keyed) or a running total. */
export type UsageRecord =
  | {
      type: 'call';
      /** The agent's id of the answer: a later line with it replaces it. */
      key: string;
      ts: string;
      model: string | null;
      figures: UsageFigures;
    }
  | { type: 'total'; ts: string; figures: UsageFigures }
  | { type: 'model'; model: string };

const tokens = z.number().int().nonnegative();
const optionalTokens = tokens.nullish();

const ClaudeLine = z.object({
  type: z.literal('assistant'),
  timestamp: z.string().optional(),
  message: z.object({
    id: z.string().min(1),
    model: z.string().min(1).optional(),
    usage: z.object({
      input_tokens: tokens,
      output_tokens: tokens,
      cache_creation_input_tokens: optionalTokens,
      cache_read_input_tokens: optionalTokens,
      cache_creation: z
        .object({ ephemeral_1h_input_tokens: optionalTokens })
        .nullish(),
    }),
  }),
});

/** Claude Code writes this model name on messages it made up itself (no call). */
const CLAUDE_SYNTHETIC_MODEL = '<synthetic>';

export function readClaudeLine(line: unknown): UsageRecord | undefined {
  const parsed = ClaudeLine.safeParse(line);
  if (!parsed.success) return undefined;
  const { message, timestamp } = parsed.data;
  if (message.model === CLAUDE_SYNTHETIC_MODEL) return undefined;
  const usage = message.usage;
  const hour = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  return {
    type: 'call',
    key: message.id,
    ts: timestamp ?? '',
    model: message.model ?? null,
    figures: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? null,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? null,
      ...(hour > 0 ? { cacheWrite1hTokens: hour } : {}),
    },
  };
}

const CodexUsage = z.object({
  input_tokens: tokens,
  cached_input_tokens: optionalTokens,
  cache_write_input_tokens: optionalTokens,
  output_tokens: tokens,
});

/** Codex's figures: its input counts the cached part, taken out here. */
function codexFigures(usage: z.infer<typeof CodexUsage>): UsageFigures {
  const cached = usage.cached_input_tokens ?? null;
  return {
    inputTokens: Math.max(0, usage.input_tokens - (cached ?? 0)),
    outputTokens: usage.output_tokens,
    cacheReadTokens: cached,
    cacheWriteTokens: usage.cache_write_input_tokens ?? null,
  };
}

const CodexLine = z.union([
  z.object({
    type: z.literal('turn_context'),
    payload: z.object({ model: z.string().min(1) }),
  }),
  z.object({
    type: z.literal('token_usage_record'),
    timestamp: z.string().optional(),
    payload: z.object({ response_id: z.string().min(1), usage: CodexUsage }),
  }),
  z.object({
    type: z.literal('event_msg'),
    timestamp: z.string().optional(),
    payload: z.object({
      type: z.literal('token_count'),
      info: z.object({ total_token_usage: CodexUsage }).nullish(),
    }),
  }),
]);

export function readCodexLine(line: unknown): UsageRecord | undefined {
  const parsed = CodexLine.safeParse(line);
  if (!parsed.success) return undefined;
  const value = parsed.data;
  if (value.type === 'turn_context')
    return { type: 'model', model: value.payload.model };
  if (value.type === 'token_usage_record')
    return {
      type: 'call',
      key: value.payload.response_id,
      ts: value.timestamp ?? '',
      // The model of the turn (its turn_context line, before it).
      model: null,
      figures: codexFigures(value.payload.usage),
    };
  const total = value.payload.info?.total_token_usage;
  if (!total) return undefined;
  return {
    type: 'total',
    ts: value.timestamp ?? '',
    figures: codexFigures(total),
  };
}

const GeminiLine = z.object({
  id: z.string().min(1),
  type: z.literal('gemini'),
  timestamp: z.string().optional(),
  model: z.string().min(1).nullish(),
  tokens: z
    .object({
      input: tokens,
      output: tokens,
      cached: optionalTokens,
      thoughts: optionalTokens,
      tool: optionalTokens,
    })
    .nullish(),
});

export function readGeminiLine(line: unknown): UsageRecord | undefined {
  const parsed = GeminiLine.safeParse(line);
  if (!parsed.success || !parsed.data.tokens) return undefined;
  const { id, timestamp, model } = parsed.data;
  const t = parsed.data.tokens;
  const cached = t.cached ?? 0;
  return {
    type: 'call',
    key: id,
    ts: timestamp ?? '',
    model: model ?? null,
    figures: {
      inputTokens: Math.max(0, t.input - cached) + (t.tool ?? 0),
      outputTokens: t.output + (t.thoughts ?? 0),
      // Gemini CLI writes 0 for a figure the API left out: a cache read of
      // 0 is "none or not told", the same to what it costs.
      cacheReadTokens: cached,
      // The Gemini API reports no cache writes.
      cacheWriteTokens: null,
    },
  };
}
