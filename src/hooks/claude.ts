/**
 * Pure: Claude Code's hook protocol. Claude Code runs a command hook with the
 * event's JSON on stdin; on exit 0 it reads a JSON object from stdout (see
 * docs/hooks.md for the fields and the sources). One handler per event:
 * (input, context) → plan. Nothing here reads files, the clock or the
 * environment; the runner passes all of it in.
 */
import { approvalFingerprint } from '../protocol/approval.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import { sanitizeText } from '../protocol/sanitize.js';
import type { ApprovalDecision, DecisionFile } from '../state/hook-files.js';
import {
  isTypedAnswer,
  type AgentStateName,
  type RequestRecord,
} from '../state/types.js';
import { evaluatePolicy, toolSubjects } from './policy.js';
import type {
  ApprovalAsk,
  HookContext,
  HookEventRecord,
  HookPlan,
} from './types.js';

/** The Claude Code events macs installs hooks for. */
export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'Notification',
  'PermissionRequest',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/**
 * Stop hooks in a row that may hand over a queued answer before macs lets
 * the agent stop (Claude Code itself gives up after more; docs/hooks.md).
 */
export const STOP_BLOCK_CAP = 3;

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

function str(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
}

function record(
  input: Record<string, unknown>,
  key: string,
): Record<string, unknown> {
  const value = input[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function clip(text: string, max = EVENT_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function hookEvent(
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

/**
 * The additional context SessionStart gives the agent: a worker gets the
 * worker protocol; the controller only its name and role (it learns its
 * work from its first message, or from each request typed into it).
 */
export function formatSessionContext(
  agent: string,
  workerPrompt: string,
  role: 'worker' | 'controller' = 'worker',
): string {
  if (role === 'controller')
    return `macs supervises worker agents; you are their controller, agent "${agent}". You do not print request blocks.`;
  const prompt = workerPrompt.trim();
  return `${prompt ? `${prompt}\n\n` : ''}macs supervises you as agent "${agent}".`;
}

function planSessionStart(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  return {
    reply: {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: formatSessionContext(
          ctx.agent,
          ctx.workerPrompt,
          ctx.role,
        ),
      },
    },
    observation: { state: 'idle', consecutiveBlocks: 0 },
    events: [
      hookEvent('SessionStart', input, {
        source: str(input, 'source') ?? 'unknown',
        ...(str(input, 'model') ? { model: str(input, 'model') } : {}),
      }),
    ],
  };
}

function planUserPromptSubmit(input: Record<string, unknown>): HookPlan {
  return {
    observation: { state: 'working', consecutiveBlocks: 0 },
    events: [
      hookEvent('UserPromptSubmit', input, {
        chars: (str(input, 'prompt') ?? '').length,
      }),
    ],
  };
}

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

function planStop(input: Record<string, unknown>, ctx: HookContext): HookPlan {
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
function planStopFailure(input: Record<string, unknown>): HookPlan {
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

/**
 * A tool call finished (PostToolUse) or failed (PostToolUseFailure): the
 * turn goes on, so the agent is working, also right after a person answered
 * its permission dialog.
 */
function planPostToolUse(
  event: 'PostToolUse' | 'PostToolUseFailure',
  input: Record<string, unknown>,
): HookPlan {
  return {
    observation: { state: 'working' },
    events: [
      hookEvent(event, input, { tool: str(input, 'tool_name') ?? 'unknown' }),
    ],
  };
}

/** The state a Notification implies (`notification_type`, else its message). */
export function notificationState(
  type: string | undefined,
  message: string,
): AgentStateName | undefined {
  switch (type) {
    case 'permission_prompt':
    case 'elicitation_dialog':
      return 'approval';
    case 'idle_prompt':
      return 'idle';
    case undefined:
      if (/\bpermission\b/i.test(message)) return 'approval';
      if (/\bwaiting for your input\b/i.test(message)) return 'idle';
      return undefined;
    default:
      return undefined;
  }
}

function planNotification(input: Record<string, unknown>): HookPlan {
  const type = str(input, 'notification_type');
  const message = str(input, 'message') ?? '';
  const state = notificationState(type, message);
  return {
    ...(state ? { observation: { state } } : {}),
    events: [
      hookEvent('Notification', input, {
        ...(type ? { notificationType: type } : {}),
        message: clip(message),
      }),
    ],
  };
}

/**
 * Claude Code needs a person's permission for a tool call: the call becomes
 * a `type=approval` request, decided through this hook's reply
 * (`hookSpecificOutput.decision.behavior`), so nothing is typed. Claude Code
 * shows its own dialog meanwhile; without a decision in time the hook
 * replies nothing and the dialog stays for a person.
 */
function planPermissionRequest(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  const tool = str(input, 'tool_name') ?? 'unknown';
  const toolInput = record(input, 'tool_input');
  const fingerprint = approvalFingerprint(tool, toolInput);
  const subject =
    toolSubjects(toolInput)[0] ?? clip(JSON.stringify(toolInput), 500);
  const sessionId = str(input, 'session_id');
  const id = approvalRequestId(
    ctx.agent,
    `permission:${fingerprint}`,
    subject,
    ctx.now,
  );
  const description = str(toolInput, 'description');
  const ask: ApprovalAsk = {
    id,
    event: 'PermissionRequest',
    tool,
    subject,
    fingerprint,
    body: formatPermissionBody({
      agent: ctx.agent,
      tool,
      subject,
      ...(description ? { description } : {}),
      timeoutSec: ctx.policy.askTimeoutSec,
    }),
    timeoutSec: ctx.policy.askTimeoutSec,
    default: 'dialog',
    ...(sessionId ? { sessionId } : {}),
  };
  return { ask, observation: { state: 'approval' }, events: [] };
}

/** What the controller reads for a PermissionRequest. */
export function formatPermissionBody(ask: {
  agent: string;
  tool: string;
  subject: string;
  description?: string;
  timeoutSec: number;
}): string {
  return [
    `${ask.agent} (Claude Code) asks for permission to use a tool.`,
    '',
    `Tool: ${ask.tool}`,
    `${ask.tool === 'Bash' ? 'Command' : 'Target'}: ${ask.subject}`,
    ...(ask.description ? [`Why: ${ask.description}`] : []),
    '',
    'Answer with "allow" or "deny" as the first word; with a deny, the rest of the answer is passed to the agent as the reason.',
    `The agent waits ${ask.timeoutSec}s; without an answer its own permission dialog stays open for a person at its screen.`,
  ].join('\n');
}

function denyReply(reason: string): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  };
}

/** The id of the approval request a PreToolUse call becomes. */
export function approvalRequestId(
  agent: string,
  toolUseId: string,
  subject: string,
  now: Date,
): string {
  const hash = hashBody(`${toolUseId}\n${subject}\n${now.toISOString()}`);
  return makeRequestId({
    agent,
    workerId: `approval-${hash.slice(0, 12)}`,
    body: subject,
    now,
  });
}

/** What the controller reads for an approval request. */
export function formatApprovalBody(ask: {
  agent: string;
  tool: string;
  subject: string;
  rule: string;
  pattern: string;
  timeoutSec: number;
  default: 'allow' | 'deny';
}): string {
  return [
    `${ask.agent} wants to use a tool that the macs policy sends to you for approval.`,
    '',
    `Tool: ${ask.tool}`,
    `${ask.tool === 'Bash' ? 'Command' : 'Target'}: ${ask.subject}`,
    `Rule: ${ask.rule} (${ask.pattern})`,
    '',
    'Answer with "allow" or "deny" as the first word; the rest of the answer is passed to the agent as the reason.',
    `The agent waits ${ask.timeoutSec}s; without an answer macs will ${ask.default} it.`,
  ].join('\n');
}

function planPreToolUse(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  const tool = str(input, 'tool_name') ?? 'unknown';
  const toolInput = record(input, 'tool_input');
  const verdict = evaluatePolicy({ tool, input: toolInput }, ctx.policy);
  switch (verdict.type) {
    case 'pass':
      return {
        observation: { state: 'working' },
        events: [hookEvent('PreToolUse', input, { tool, decision: 'pass' })],
      };
    case 'deny': {
      const why =
        verdict.rule.reason ?? 'it matches a pattern the project denies';
      return {
        reply: denyReply(
          `macs policy "${verdict.rule.name}" refused this: ${why}. ` +
            `Do not try to get around it; if it is really needed, ask the controller with a CONTROLLER_REQUEST block of type=approval.`,
        ),
        observation: { state: 'working' },
        events: [
          hookEvent('PreToolUse', input, {
            tool,
            decision: 'deny',
            rule: verdict.rule.name,
            subject: clip(verdict.subject),
          }),
        ],
      };
    }
    case 'ask': {
      const toolUseId = str(input, 'tool_use_id');
      const sessionId = str(input, 'session_id');
      const id = approvalRequestId(
        ctx.agent,
        toolUseId ?? '',
        verdict.subject,
        ctx.now,
      );
      const ask: ApprovalAsk = {
        id,
        event: 'PreToolUse',
        tool,
        subject: verdict.subject,
        rule: verdict.rule.name,
        fingerprint: approvalFingerprint(tool, toolInput),
        body: formatApprovalBody({
          agent: ctx.agent,
          tool,
          subject: verdict.subject,
          rule: verdict.rule.name,
          pattern: verdict.rule.pattern,
          timeoutSec: ctx.policy.askTimeoutSec,
          default: ctx.policy.askDefault,
        }),
        timeoutSec: ctx.policy.askTimeoutSec,
        default: ctx.policy.askDefault,
        ...(toolUseId ? { toolUseId } : {}),
        ...(sessionId ? { sessionId } : {}),
      };
      return { ask, observation: { state: 'approval' }, events: [] };
    }
    default: {
      const never: never = verdict;
      throw new Error(`unexpected verdict ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Plan the answer to one Claude Code hook call. `event` is the name macs was
 * called with (`macs hook <event>`); an event macs has no handler for is
 * recorded and otherwise left alone.
 */
export function planClaudeHook(
  event: string,
  raw: string,
  ctx: HookContext,
): HookPlan {
  const parsed = parseHookInput(raw);
  if (!parsed.ok) return errorPlan(event, parsed.error);
  const input = parsed.value;
  switch (event) {
    case 'SessionStart':
      return planSessionStart(input, ctx);
    case 'UserPromptSubmit':
      return planUserPromptSubmit(input);
    case 'Stop':
      return planStop(input, ctx);
    case 'StopFailure':
      return planStopFailure(input);
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return planPostToolUse(event, input);
    case 'Notification':
      return planNotification(input);
    case 'PermissionRequest':
      return planPermissionRequest(input, ctx);
    case 'PreToolUse':
      return planPreToolUse(input, ctx);
    default:
      return { events: [hookEvent(event, input, {})] };
  }
}

/** The reply to a PermissionRequest: Claude Code's documented decision. */
export function permissionReply(
  decision: ApprovalDecision,
  message: string,
): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision:
        decision === 'allow'
          ? { behavior: 'allow' }
          : { behavior: 'deny', message },
    },
  };
}

/** The reply to an approval once it is decided (or the hook gave up waiting). */
export function resolveApproval(
  ask: ApprovalAsk,
  decision: Pick<DecisionFile, 'decision' | 'by' | 'reason'>,
  waitedMs: number,
  extra: Record<string, unknown> = {},
): HookPlan {
  const event: HookEventRecord = {
    type: `hook.${ask.event}`,
    requestId: ask.id,
    data: {
      ...(ask.sessionId ? { session: ask.sessionId } : {}),
      tool: ask.tool,
      decision: decision.decision,
      by: decision.by,
      ...(ask.rule ? { rule: ask.rule } : {}),
      subject: clip(ask.subject),
      fingerprint: ask.fingerprint,
      waitedMs,
      ...extra,
    },
  };
  if (decision.decision === 'dialog') {
    // Nobody decided: Claude Code's dialog stays for a person. The
    // observation written before the wait (or a newer one) stands.
    return { events: [event] };
  }
  const who =
    decision.by === 'person'
      ? 'A person'
      : decision.by === 'rule'
        ? 'A macs approval rule'
        : 'The controller';
  const reason =
    decision.by === 'timeout'
      ? decision.reason ||
        `no decision from the controller within ${ask.timeoutSec}s; macs applied its default (${decision.decision})`
      : decision.decision === 'allow'
        ? `${who} approved this: ${decision.reason}`
        : `${who} refused this: ${decision.reason}`;
  return {
    reply:
      ask.event === 'PermissionRequest'
        ? permissionReply(decision.decision, reason)
        : {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: decision.decision,
              permissionDecisionReason: reason,
            },
          },
    observation: { state: 'working' },
    events: [event],
  };
}
