/**
 * Pure: a hook's approval as the bridge records it. The request file a
 * PreToolUse or PermissionRequest hook leaves (`.macs/hook-requests/<agent>/`)
 * becomes a `type=approval` request's record (origin `hook`); its decision
 * goes back to the waiting hook as `.macs/decisions/<id>.json`.
 */
import { hashBody, isSafeFileName } from '../../protocol/ids.js';
import type { DecisionFile, HookRequestFile } from '../../state/hook-files.js';
import { detectedRecord } from '../../state/ledger.js';
import type { RequestRecord } from '../../state/types.js';
import type { ApprovalRuling } from './approval-decision.js';

/** Is this a request file this agent's bridge may take (else it is dropped)? */
export function isHookRequestFor(
  request: HookRequestFile | undefined,
  agent: string,
): request is HookRequestFile {
  return (
    request !== undefined &&
    request.agent === agent &&
    isSafeFileName(request.id)
  );
}

/** The record of a hook's approval request, detected at `detectedAt` (ISO). */
export function hookApprovalRecord(
  request: HookRequestFile,
  agent: string,
  detectedAt: string,
): RequestRecord {
  return detectedRecord({
    id: request.id,
    agent,
    type: 'approval',
    priority: 'high',
    attributes: {
      tool: request.tool,
      hook: request.event,
      ...(request.rule ? { rule: request.rule } : {}),
      ...(request.fingerprint ? { fingerprint: request.fingerprint } : {}),
    },
    approval: {
      source:
        request.event === 'PermissionRequest'
          ? 'PermissionRequest'
          : 'PreToolUse',
      tool: request.tool,
      subject: request.subject,
      fingerprint:
        request.fingerprint ??
        hashBody(`${request.tool}\n${request.subject}`).slice(0, 16),
      ...(request.rule ? { rule: request.rule } : {}),
      ...(request.pid ? { hookPid: request.pid } : {}),
    },
    bodyHash: hashBody(request.body),
    body: request.body,
    detectedAt,
    origin: 'hook',
  });
}

/** What the `request.detected` event of a hook's approval says. */
export function hookDetectedData(
  request: HookRequestFile,
  record: RequestRecord,
): Record<string, unknown> {
  return {
    type: record.type,
    priority: record.priority,
    origin: 'hook',
    hook: request.event,
    tool: request.tool,
    ...(request.rule ? { rule: request.rule } : {}),
    ...(request.fingerprint ? { fingerprint: request.fingerprint } : {}),
    chars: record.body.length,
  };
}

/** The fingerprint a decision carries: the approval's, when it has one. */
function fingerprintField(record: RequestRecord): { fingerprint?: string } {
  return record.approval ? { fingerprint: record.approval.fingerprint } : {};
}

/** The decision on an approval, as written for its waiting hook. */
export function decisionFile(
  record: RequestRecord,
  ruling: ApprovalRuling,
  decidedAt: string,
): DecisionFile {
  return {
    id: record.id,
    decision: ruling.decision,
    ...fingerprintField(record),
    by: ruling.decidedBy,
    via: ruling.via,
    reason: ruling.reason,
    decidedAt,
  };
}

/**
 * The decision taken for an approval whose hook process (`pid`) is gone: a
 * `timeout` deny, since a decision now would reach nobody.
 */
export function goneHookDecision(
  record: RequestRecord,
  pid: number,
  decidedAt: string,
): DecisionFile {
  return {
    id: record.id,
    decision: 'deny',
    by: 'timeout',
    reason: `the hook that asked (pid ${pid}) is no longer waiting`,
    decidedAt,
    ...fingerprintField(record),
  };
}
