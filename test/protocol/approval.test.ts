import { describe, expect, it } from 'vitest';
import {
  approvalFingerprint,
  deciderOf,
  hubAnswerBy,
  parseApprovalAnswer,
} from '../../src/protocol/approval.js';

describe('parseApprovalAnswer', () => {
  it.each([
    ['allow', 'allow'],
    ['Allow: the tests pass', 'allow'],
    ['**Approved.** Go on.', 'allow'],
    ['yes', 'allow'],
    ['OK, push it', 'allow'],
    ['go ahead', 'allow'],
    ['LGTM', 'allow'],
    ['deny', 'deny'],
    ['Denied: not before the release', 'deny'],
    ['no', 'deny'],
    ["Don't push yet", 'deny'],
    ['don’t', 'deny'],
    ['> reject', 'deny'],
    ['- stop, wait for review', 'deny'],
  ])('%j → %s', (text, decision) => {
    const answer = parseApprovalAnswer(text);
    expect(answer).toEqual({ decision, recognized: true, reason: text.trim() });
  });

  it.each(['maybe later', 'goodness', 'nope', '', 'I think so'])(
    'fails closed on %j',
    (text) => {
      expect(parseApprovalAnswer(text)).toMatchObject({
        decision: 'deny',
        recognized: false,
      });
    },
  );
});

describe('deciderOf: who decided, from where the answer came', () => {
  it.each([
    ['rule:tests', undefined, 'rule', 'tests'],
    [
      'outbox/w1-a.txt',
      'mcp:decide_approval',
      'controller',
      'mcp:decide_approval',
    ],
    [
      'outbox/w1-a.txt',
      'mcp:answer_request',
      'controller',
      'mcp:answer_request',
    ],
    ['outbox/w1-a.txt', undefined, 'person', 'outbox'],
    ['outbox/w1-a.txt', 'web:decide_approval', 'person', 'web:decide_approval'],
    // From a hub: its controller's tools, or a person there.
    [
      'outbox/w1-a.txt',
      'hub:decide_approval',
      'controller',
      'hub:decide_approval',
    ],
    [
      'outbox/w1-a.txt',
      'hub:answer_request',
      'controller',
      'hub:answer_request',
    ],
    ['outbox/w1-a.txt', 'hub:respond', 'person', 'hub:respond'],
    ['outbox/w1-a.txt', 'hub:status', 'person', 'hub:status'],
    ['outbox/w1-a.txt', 'hub:web', 'person', 'hub:web'],
    ['exec:codex', undefined, 'controller', 'exec:codex'],
    ['controller:%3', undefined, 'controller', 'controller:%3'],
  ] as const)('%s (%s) → %s %s', (source, by, decidedBy, via) => {
    expect(deciderOf(source, by)).toEqual({ decidedBy, via });
  });
});

describe('approvalFingerprint', () => {
  it('is the same for the same tool and input in any key order, and differs otherwise', () => {
    const a = approvalFingerprint('Bash', { command: 'ls', description: 'x' });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(
      approvalFingerprint('Bash', { description: 'x', command: 'ls' }),
    ).toBe(a);
    expect(
      approvalFingerprint('Bash', { command: 'ls -a', description: 'x' }),
    ).not.toBe(a);
    expect(
      approvalFingerprint('Read', { command: 'ls', description: 'x' }),
    ).not.toBe(a);
    expect(approvalFingerprint('screen', 'Do you want to proceed?')).not.toBe(
      approvalFingerprint('screen', 'Do you want to proceed? '),
    );
  });
});

describe('hubAnswerBy', () => {
  it("keeps a hub's label and drops anything else", () => {
    expect(hubAnswerBy('hub:respond')).toBe('hub:respond');
    expect(hubAnswerBy('macs respond')).toBeUndefined();
    expect(hubAnswerBy('hub:anything')).toBeUndefined();
    expect(hubAnswerBy(undefined)).toBeUndefined();
  });
});
