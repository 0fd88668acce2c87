import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import { PolicySchema } from '../../src/config/policy.js';
import {
  approvalRequestId,
  formatApprovalBody,
  formatPermissionBody,
  permissionReply,
  planPermissionRequest,
  planPreToolUse,
  resolveApproval,
} from '../../src/hooks/claude-approval.js';
import type { ApprovalAsk, HookContext } from '../../src/hooks/types.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');

function ctx(overrides: Partial<HookContext> = {}): HookContext {
  return {
    agent: 'w1',
    now: NOW,
    agentState: undefined,
    previous: undefined,
    policy: defaultPolicy(),
    workerPrompt: '',
    unavailable: new Set(),
    paused: false,
    ...overrides,
  };
}

const ask: ApprovalAsk = {
  id: 'w1-approval-000000000000',
  event: 'PreToolUse',
  tool: 'Bash',
  subject: 'git push',
  rule: 'ask-0',
  fingerprint: '0123456789abcdef',
  body: 'may I push?',
  timeoutSec: 60,
  default: 'deny',
  sessionId: 's-1',
};

describe('approvalRequestId', () => {
  it('is an approval id of the agent, the same for the same call and moment', () => {
    const id = approvalRequestId('w1', 'toolu_1', 'git push', NOW);
    expect(id).toMatch(/^w1-approval-[0-9a-f]{12}$/);
    expect(approvalRequestId('w1', 'toolu_1', 'git push', NOW)).toBe(id);
    expect(approvalRequestId('w1', 'toolu_2', 'git push', NOW)).not.toBe(id);
    expect(
      approvalRequestId(
        'w1',
        'toolu_1',
        'git push',
        new Date(NOW.getTime() + 1),
      ),
    ).not.toBe(id);
  });
});

describe('what the controller reads', () => {
  it('a PermissionRequest: a command for Bash, a target otherwise, and why when given', () => {
    const bash = formatPermissionBody({
      agent: 'w1',
      tool: 'Bash',
      subject: 'npm publish',
      description: 'Publish the package',
      timeoutSec: 90,
    });
    expect(bash).toContain('w1 (Claude Code) asks for permission');
    expect(bash).toContain('Command: npm publish');
    expect(bash).toContain('Why: Publish the package');
    expect(bash).toContain('The agent waits 90s');
    const write = formatPermissionBody({
      agent: 'w1',
      tool: 'Write',
      subject: '/repo/x',
      timeoutSec: 90,
    });
    expect(write).toContain('Target: /repo/x');
    expect(write).not.toContain('Why:');
  });

  it('a policy approval: the rule, its pattern and what happens without an answer', () => {
    const body = formatApprovalBody({
      agent: 'w1',
      tool: 'Bash',
      subject: 'git push',
      rule: 'ask-0',
      pattern: '\\bgit\\s+push\\b',
      timeoutSec: 30,
      default: 'deny',
    });
    expect(body).toContain('Rule: ask-0 (\\bgit\\s+push\\b)');
    expect(body).toContain('without an answer macs will deny it');
  });
});

describe('planning', () => {
  it('PermissionRequest: the first subject of the input, the dialog as the default', () => {
    const p = planPermissionRequest(
      {
        session_id: 's-1',
        tool_name: 'Read',
        tool_input: { file_path: '/repo/a.ts' },
      },
      ctx(),
    );
    expect(p.ask).toMatchObject({
      event: 'PermissionRequest',
      tool: 'Read',
      subject: '/repo/a.ts',
      default: 'dialog',
      sessionId: 's-1',
      timeoutSec: defaultPolicy().askTimeoutSec,
    });
    expect(p.ask?.rule).toBeUndefined();
  });

  it('PreToolUse: an unknown tool with no input passes', () => {
    expect(planPreToolUse({}, ctx())).toEqual({
      observation: { state: 'working' },
      events: [
        {
          type: 'hook.PreToolUse',
          data: { tool: 'unknown', decision: 'pass' },
        },
      ],
    });
  });

  it('PreToolUse: an ask without a tool_use_id still gets an id, and the policy default', () => {
    const policy = PolicySchema.parse({ ask: ['push'], askDefault: 'allow' });
    const p = planPreToolUse(
      { tool_name: 'Bash', tool_input: { command: 'git push' } },
      ctx({ policy }),
    );
    expect(p.ask?.id).toMatch(/^w1-approval-[0-9a-f]{12}$/);
    expect(p.ask?.default).toBe('allow');
    expect(p.ask?.toolUseId).toBeUndefined();
  });
});

describe('replies', () => {
  it('permissionReply: allow carries no message, deny carries one', () => {
    expect(permissionReply('allow', 'fine')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow' },
      },
    });
    expect(permissionReply('deny', 'no')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'no' },
      },
    });
  });

  it('resolveApproval says who decided', () => {
    const reason = (by: 'person' | 'rule', decision: 'allow' | 'deny') =>
      resolveApproval(ask, { decision, by, reason: 'because' }, 5).reply;
    expect(JSON.stringify(reason('person', 'allow'))).toContain(
      'A person approved this: because',
    );
    expect(JSON.stringify(reason('rule', 'deny'))).toContain(
      'A macs approval rule refused this: because',
    );
  });

  it('resolveApproval keeps a timeout reason, and records the rule, the session and extra data', () => {
    const timedOut = resolveApproval(
      ask,
      { decision: 'deny', by: 'timeout', reason: 'the bridge stopped' },
      60_000,
      { late: true },
    );
    expect(timedOut.reply).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'the bridge stopped',
      },
    });
    expect(timedOut.observation).toEqual({ state: 'working' });
    expect(timedOut.events).toEqual([
      {
        type: 'hook.PreToolUse',
        requestId: ask.id,
        data: {
          session: 's-1',
          tool: 'Bash',
          decision: 'deny',
          by: 'timeout',
          rule: 'ask-0',
          subject: 'git push',
          fingerprint: ask.fingerprint,
          waitedMs: 60_000,
          late: true,
        },
      },
    ]);
  });
});
