import { describe, expect, it } from 'vitest';
import { rulingOf } from '../../../src/bridge/approvals/approval-decision.js';
import {
  decisionFile,
  goneHookDecision,
  hookApprovalRecord,
  hookDetectedData,
  isHookRequestFor,
} from '../../../src/bridge/approvals/hook-approval-record.js';
import { hashBody } from '../../../src/protocol/ids.js';
import type { HookRequestFile } from '../../../src/state/hook-files.js';

const AT = '2025-01-01T12:00:00.000Z';

function request(fields: Partial<HookRequestFile> = {}): HookRequestFile {
  return {
    id: 'w1-approval-abc',
    agent: 'w1',
    type: 'approval',
    event: 'PreToolUse',
    tool: 'Bash',
    subject: 'git push',
    body: 'w1 wants to run git push',
    createdAt: AT,
    timeoutSec: 60,
    default: 'deny',
    ...fields,
  };
}

describe('hook approval record (pure)', () => {
  it("takes only this agent's requests with a safe id", () => {
    expect(isHookRequestFor(request(), 'w1')).toBe(true);
    expect(isHookRequestFor(request(), 'w2')).toBe(false);
    expect(isHookRequestFor(request({ id: '../escape' }), 'w1')).toBe(false);
    expect(isHookRequestFor(undefined, 'w1')).toBe(false);
  });

  it('records a PreToolUse request as a detected high-priority approval', () => {
    const record = hookApprovalRecord(
      request({ rule: 'ask-0', pid: 4242 }),
      'w1',
      AT,
    );
    expect(record).toEqual({
      id: 'w1-approval-abc',
      agent: 'w1',
      type: 'approval',
      priority: 'high',
      attributes: { tool: 'Bash', hook: 'PreToolUse', rule: 'ask-0' },
      approval: {
        source: 'PreToolUse',
        tool: 'Bash',
        subject: 'git push',
        fingerprint: hashBody('Bash\ngit push').slice(0, 16),
        rule: 'ask-0',
        hookPid: 4242,
      },
      bodyHash: hashBody('w1 wants to run git push'),
      body: 'w1 wants to run git push',
      stage: 'detected',
      detectedAt: AT,
      origin: 'hook',
    });
    expect(hookDetectedData(request({ rule: 'ask-0' }), record)).toEqual({
      type: 'approval',
      priority: 'high',
      origin: 'hook',
      hook: 'PreToolUse',
      tool: 'Bash',
      rule: 'ask-0',
      chars: record.body.length,
    });
  });

  it("keeps a PermissionRequest's own fingerprint", () => {
    const asked = request({
      event: 'PermissionRequest',
      fingerprint: '0123456789abcdef',
    });
    const record = hookApprovalRecord(asked, 'w1', AT);
    expect(record.approval).toEqual({
      source: 'PermissionRequest',
      tool: 'Bash',
      subject: 'git push',
      fingerprint: '0123456789abcdef',
    });
    expect(record.attributes.fingerprint).toBe('0123456789abcdef');
    expect(hookDetectedData(asked, record)).toMatchObject({
      hook: 'PermissionRequest',
      fingerprint: '0123456789abcdef',
    });
  });

  it('the decision file for the waiting hook', () => {
    const record = hookApprovalRecord(request(), 'w1', AT);
    const ruling = rulingOf({
      instructions: 'deny: not before the release',
      notes: '',
      source: 'outbox/w1.txt',
      receivedAt: AT,
      raw: '',
    });
    expect(decisionFile(record, ruling, AT)).toEqual({
      id: record.id,
      decision: 'deny',
      fingerprint: record.approval?.fingerprint,
      by: 'person',
      via: 'outbox',
      reason: 'deny: not before the release',
      decidedAt: AT,
    });
    expect(goneHookDecision(record, 99, AT)).toEqual({
      id: record.id,
      decision: 'deny',
      by: 'timeout',
      reason: 'the hook that asked (pid 99) is no longer waiting',
      decidedAt: AT,
      fingerprint: record.approval?.fingerprint,
    });
    const { approval: _approval, ...plain } = record;
    expect(decisionFile(plain, ruling, AT)).not.toHaveProperty('fingerprint');
  });
});
