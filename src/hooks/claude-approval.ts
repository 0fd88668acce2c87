/**
 * Pure: Claude Code's approvals. A PermissionRequest (Claude Code would ask
 * a person) and a PreToolUse call the macs policy sends for approval both
 * become an approval to ask the controller; the runner raises it and waits,
 * then `resolveApproval` turns the decision into the hook's reply. A
 * PreToolUse call the policy denies is refused here at once, and one it
 * passes is left to Claude Code.
 */
import { approvalFingerprint } from '../protocol/approval.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import type { ApprovalDecision, DecisionFile } from '../state/hook-files.js';
import { clip, hookEvent, record, str } from './hook-input.js';
import { evaluatePolicy, toolSubjects } from './policy-verdict.js';
import type {
  ApprovalAsk,
  HookContext,
  HookEventRecord,
  HookPlan,
} from './types.js';

/**
 * Claude Code needs a person's permission for a tool call: the call becomes
 * a `type=approval` request, decided through this hook's reply
 * (`hookSpecificOutput.decision.behavior`), so nothing is typed. Claude Code
 * shows its own dialog meanwhile; without a decision in time the hook
 * replies nothing and the dialog stays for a person.
 */
export function planPermissionRequest(
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

/**
 * What the agent reads when a deny rule refuses its call: the rule, and how
 * to appeal (docs/hooks.md#appeals): a `type=appeal` request naming the
 * call, which the controller upholds or overturns.
 */
export function denyReason(
  rule: string,
  why: string,
  fingerprint: string,
): string {
  return (
    `macs policy "${rule}" refused this: ${why}. ` +
    'Do not try to get around it with a similar command. ' +
    'If this exact call is really needed, appeal: print a request block ' +
    `<<CONTROLLER_REQUEST type=appeal call=${fingerprint}>> ` +
    'saying why you need it, then <<CONTROLLER_REQUEST_END>>, and wait. ' +
    'If the controller overturns the denial, the same call, unchanged, is let through once.'
  );
}

/**
 * The reply to a denied call whose appeal was overturned: allowed this
 * once (the allowance is taken, state/denials.ts).
 */
export function overturnedReply(
  appeal: string,
  reason: string,
): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: `The controller overturned the denial on appeal ${appeal}${reason ? `: ${reason}` : ''}; this call is allowed once.`,
    },
  };
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

/**
 * A tool call Claude Code is about to make, checked against the macs policy:
 * denied at once, passed without a reply, or an approval to ask.
 */
export function planPreToolUse(
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
      const fingerprint = approvalFingerprint(tool, toolInput);
      const transcript = str(input, 'transcript_path');
      return {
        reply: denyReply(denyReason(verdict.rule.name, why, fingerprint)),
        denial: {
          tool,
          subject: clip(verdict.subject),
          fingerprint,
          rule: verdict.rule.name,
          ...(transcript ? { transcript } : {}),
        },
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
