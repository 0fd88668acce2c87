/**
 * Pure: what a host may say, checked as local input is. Agent names pass
 * the agent-name check of local agents, request ids the safe-file-name
 * check, every string is bounded and cleaned of control characters, and
 * anything else is refused as a whole (a host is trusted no more than a
 * worker: docs/remote.md, "Security").
 */
import * as z from 'zod';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { AGENT_STATE_NAMES } from '../config/states.js';

/** Longest text field from a host (a request's first line, a state source). */
const MAX_FIELD_CHARS = 512;
/** Longest body from a host (a request's body: the parser's own limit). */
const MAX_BODY_CHARS = 64 * 1024;
/** Most agents and requests one host may list. */
const MAX_ITEMS = 2_000;

/** Control characters other than newline and tab, removed from host text. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A host's text, cleaned of control characters (newline and tab stay). */
export function cleanHostText(text: string): string {
  return text.replace(CONTROL, '');
}

const line = z
  .string()
  .max(MAX_FIELD_CHARS)
  .transform((s) => cleanHostText(s).replace(/[\n\t]/g, ' '));
/** A time as macs writes it (ISO, UTC). */
export const HostTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/)
  .refine((s) => Number.isFinite(Date.parse(s)), { message: 'not a time' });
const body = z.string().max(MAX_BODY_CHARS).transform(cleanHostText);
export const HostAgentName = z.string().refine(isValidAgentName, {
  message: 'not an agent name',
});
export const HostRequestId = z.string().refine(isSafeFileName, {
  message: 'not a request id',
});

export const HostAgentSchema = z.object({
  name: HostAgentName,
  preset: line.nullish(),
  state: z.enum(AGENT_STATE_NAMES).catch('unknown'),
  stateSource: line.nullish(),
  stateAgeSec: z.number().finite().nullish(),
  /** On the host's clock (the hub corrects it: remote/fleet-model.ts). */
  stateSince: HostTime.nullish().catch(null),
  pane: z
    .string()
    .regex(/^%\d{1,9}$/)
    .nullish(),
  paused: z.boolean().catch(false),
  bridgeRunning: z.boolean().catch(false),
  pendingRequests: z.array(HostRequestId).max(MAX_ITEMS).catch([]),
});
export type HostAgent = z.infer<typeof HostAgentSchema>;

export const HostRequestSchema = z.object({
  id: HostRequestId,
  agent: HostAgentName,
  type: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/)
    .catch('question'),
  stage: line,
  priority: line.nullish(),
  waitingForAnswer: z.boolean().catch(false),
  ageSec: z.number().finite().nullish(),
  /** On the host's clock (the hub corrects it: remote/fleet-model.ts). */
  detectedAt: HostTime.nullish().catch(null),
  firstLine: line.catch(''),
  /** The request whole (a list asked for `full`, and get_request). */
  body: body.optional(),
  attributes: z
    .record(z.string().max(64).transform(cleanHostText), line)
    .refine((a) => Object.keys(a).length <= 64, {
      message: 'too many attributes',
    })
    .optional(),
  context: z
    .unknown()
    .transform((c) => (c === undefined ? undefined : cleanHostValue(c, 0)))
    .optional(),
});
export type HostRequest = z.infer<typeof HostRequestSchema>;

export const HostAgentListSchema = z.object({
  /** The host's clock as it answered (older hosts: none). */
  now: HostTime.optional(),
  agents: z.array(HostAgentSchema).max(MAX_ITEMS),
});
export const HostRequestListSchema = z.object({
  now: HostTime.optional(),
  requests: z.array(HostRequestSchema).max(MAX_ITEMS),
});
export const HostRequestDetailSchema = z.object({
  request: HostRequestSchema.extend({ body }),
});
export const HostScreenSchema = z.object({
  lines: z.array(line).max(5_000),
});

/** A budget notice of a host's `wait_for_request` (mcp/budget-notice.ts). */
export const HostBudgetNoticeSchema = z.object({
  notice: z.object({
    notice: z.literal('budget'),
    agent: HostAgentName,
    scope: z.enum(['agent', 'session']),
    percent: z.number().finite().min(0).max(100_000),
    paused: z.literal(true),
    pausedAt: z.string().max(64),
    budget: z
      .object({
        usd: z.number().finite().optional(),
        tokens: z.number().finite().optional(),
      })
      .optional(),
    spentTokens: z.number().finite().optional(),
    spentUsd: z.number().finite().nullable().optional(),
  }),
});

/** A host's version string (semver-like, bounded). */
export const HostVersion = z.string().regex(/^[0-9A-Za-z.+-]{1,40}$/);

/** Parse a host's answer with a schema; `undefined` when it does not fit. */
export function parseHostData<T>(
  schema: z.ZodType<T>,
  data: unknown,
): { ok: true; value: T } | { ok: false; error: string } {
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: `${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'}`,
  };
}

/** Longest event line a host may send (`macs events --follow --json`). */
export const MAX_EVENT_LINE_CHARS = 64 * 1024;
/** How deep an event's `data` may nest. */
const MAX_DATA_DEPTH = 8;

/** A value of a host's event data with every string cleaned; too deep is dropped. */
function cleanHostValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanHostText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DATA_DEPTH) return null;
  if (Array.isArray(value))
    return value.map((v) => cleanHostValue(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      cleanHostText(k),
      cleanHostValue(v, depth + 1),
    ]),
  );
}

/** One event of a host's log, as its `macs events --json` prints it. */
export const HostEventSchema = z.object({
  ts: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/),
  agent: HostAgentName,
  type: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/),
  requestId: HostRequestId.optional(),
  data: z
    .record(z.string(), z.unknown())
    .transform((d) => cleanHostValue(d, 0) as Record<string, unknown>)
    .optional(),
});
export type HostEvent = z.infer<typeof HostEventSchema>;

/** A line of a host's event stream: the event, or why it is refused. */
export function parseHostEventLine(
  line: string,
): { ok: true; value: HostEvent } | { ok: false; error: string } {
  if (line.length > MAX_EVENT_LINE_CHARS)
    return { ok: false, error: 'an event line over 64 KiB' };
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  return parseHostData(HostEventSchema, data);
}
