import { describe, expect, it } from 'vitest';
import {
  dialogRuleVerdict,
  hookRuleVerdict,
  answerByRule,
} from '../../../src/bridge/requests/approval-rules.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import type { ApprovalInfo, RequestRecord } from '../../../src/state/types.js';

const policy = (input: object) => ConfigSchema.parse({ policy: input }).policy;

const bash: ApprovalInfo = {
  source: 'PreToolUse',
  tool: 'Bash',
  subject: 'npm test',
  fingerprint: '0123456789abcdef',
};
const dialog: ApprovalInfo = {
  source: 'screen',
  tool: 'dialog',
  subject: 'Allow command?\n$ npm test',
  fingerprint: 'fedcba9876543210',
};

describe('approval rules', () => {
  it("a hook's approval is held to every rule, deny first", () => {
    expect(
      hookRuleVerdict(bash, policy({ allow: ['^npm test$'], deny: [] })),
    ).toMatchObject({ decision: 'allow', subject: 'npm test' });
    expect(
      hookRuleVerdict(
        bash,
        policy({
          allow: ['^npm test$'],
          deny: [{ name: 'no-npm', pattern: '^npm' }],
        }),
      ),
    ).toMatchObject({ decision: 'deny', rule: { name: 'no-npm' } });
    expect(
      hookRuleVerdict(bash, policy({ allow: ['^git'], deny: [] })),
    ).toBeUndefined();
  });

  it('a deny rule applies to a dialog whatever tool it names', () => {
    expect(
      dialogRuleVerdict(
        dialog,
        policy({
          deny: [{ name: 'no-npm', tool: '^Bash$', pattern: 'npm test' }],
        }),
      ),
    ).toMatchObject({ decision: 'deny', rule: { name: 'no-npm' } });
  });

  it('an allow rule applies to a dialog only when it names a tool matching dialog', () => {
    const any = policy({
      deny: [],
      allow: [{ name: 'any', pattern: 'npm test' }],
    });
    expect(hookRuleVerdict(dialog, any)).toMatchObject({ decision: 'allow' });
    expect(dialogRuleVerdict(dialog, any)).toBeUndefined();
    expect(
      dialogRuleVerdict(
        dialog,
        policy({
          deny: [],
          allow: [{ name: 'dlg', tool: '^dialog$', pattern: 'npm test' }],
        }),
      ),
    ).toMatchObject({ decision: 'allow', rule: { name: 'dlg' } });
  });

  it("records the rule's answer on the request, saved before its event", async () => {
    const record: RequestRecord = {
      id: 'w1-approval-r',
      agent: 'w1',
      type: 'approval',
      priority: 'high',
      attributes: {},
      approval: bash,
      bodyHash: '0'.repeat(40),
      body: 'may I run npm test?',
      stage: 'detected',
      detectedAt: '2025-01-01T00:00:00.000Z',
      origin: 'hook',
    };
    const steps: string[] = [];
    const events: Omit<EventInput, 'agent'>[] = [];
    const verdict = await answerByRule(record, {
      config: {
        policy: policy({
          deny: [],
          allow: [{ name: 'tests', pattern: '^npm test$' }],
        }),
      },
      saveNow: () => {
        steps.push(`save:${record.stage}`);
        return Promise.resolve();
      },
      emit: (event) => {
        steps.push(`emit:${event.type}`);
        events.push(event);
        return Promise.resolve();
      },
    });
    expect(verdict?.rule.name).toBe('tests');
    expect(steps).toEqual(['save:answered', 'emit:request.answered']);
    expect(record.stage).toBe('answered');
    expect(record.answeredAt).toBeDefined();
    expect(record.response).toMatchObject({
      source: 'rule:tests',
      instructions: expect.stringMatching(/^allow: macs rule "tests"/),
    });
    expect(events[0]).toEqual({
      type: 'request.answered',
      requestId: record.id,
      data: {
        source: 'rule:tests',
        decidedBy: 'rule',
        via: 'tests',
        chars: record.response?.instructions.length,
      },
    });
  });
});
