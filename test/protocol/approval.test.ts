import { describe, expect, it } from 'vitest';
import { parseApprovalAnswer } from '../../src/protocol/approval.js';

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
