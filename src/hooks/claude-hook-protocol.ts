/**
 * Pure: Claude Code's hook protocol. Claude Code runs a command hook with the
 * event's JSON on stdin; on exit 0 it reads a JSON object from stdout (see
 * docs/hooks.md for the fields and the sources). One handler per event:
 * (input, context) → plan. This module holds the events macs installs hooks
 * for, the handlers of the session and its tool calls, and `planClaudeHook`,
 * which picks the handler; the end of a turn is in claude-stop.ts and the
 * approvals in claude-approval.ts. Nothing here reads files, the clock or
 * the environment; the runner passes all of it in.
 */
import path from 'node:path';
import type { AgentStateName } from '../config/states.js';
import { planPermissionRequest, planPreToolUse } from './claude-approval.js';
import {
  compactedContext,
  compactionDone,
  planPreCompact,
  planSubagentStart,
  planSubagentStop,
} from './claude-context.js';
import { planStop, planStopFailure } from './claude-stop.js';
import {
  clip,
  errorPlan,
  hookEvent,
  parseHookInput,
  str,
} from './hook-input.js';
import type { HookContext, HookPlan } from './types.js';

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
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

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

/**
 * SessionStart: the session context, again after `clear` and `compact`. A
 * compaction (source `compact`, after PreCompact) is counted here, once it
 * is done, and the agent is reminded of it and of its open requests; the
 * state is left as it was (an automatic compaction runs inside a turn, so
 * the agent is not idle). Any other source begins a new conversation: the
 * subagents of the old one are over.
 */
function planSessionStart(
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
  const source = str(input, 'source') ?? 'unknown';
  const compact = source === 'compact';
  const role = ctx.role ?? 'worker';
  const context = formatSessionContext(ctx.agent, ctx.workerPrompt, role);
  const trigger = ctx.previous?.trigger || 'unknown';
  const session = str(input, 'session_id');
  const done = compact ? compactionDone(trigger, session) : undefined;
  return {
    reply: {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: compact ? compactedContext(context, ctx) : context,
      },
    },
    observation: compact
      ? { consecutiveBlocks: 0, trigger: '' }
      : { state: 'idle', consecutiveBlocks: 0, trigger: '' },
    events: [
      hookEvent('SessionStart', input, {
        source,
        ...(str(input, 'model') ? { model: str(input, 'model') } : {}),
      }),
      ...(done?.events ?? []),
    ],
    activity: done?.activity ?? [{ kind: 'session', source }],
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
  const plan = planClaudeEvent(event, parsed.value, ctx);
  const transcriptPath = transcriptOf(parsed.value);
  const known = (CLAUDE_HOOK_EVENTS as readonly string[]).includes(event);
  if (!transcriptPath || !known) return plan;
  return { ...plan, transcriptPath };
}

/**
 * The transcript a hook input names (`transcript_path`), kept for the
 * usage reader: an absolute path to a `.jsonl` file, else undefined.
 */
export function transcriptOf(
  input: Record<string, unknown>,
): string | undefined {
  const file = str(input, 'transcript_path');
  return file &&
    file.length <= 4096 &&
    path.isAbsolute(file) &&
    file.endsWith('.jsonl') &&
    !file.includes('\0')
    ? path.normalize(file)
    : undefined;
}

function planClaudeEvent(
  event: string,
  input: Record<string, unknown>,
  ctx: HookContext,
): HookPlan {
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
    case 'SubagentStart':
      return planSubagentStart(input);
    case 'SubagentStop':
      return planSubagentStop(input);
    case 'PreCompact':
      return planPreCompact(input);
    default:
      return { events: [hookEvent(event, input, {})] };
  }
}
