import { describe, expect, it } from 'vitest';
import {
  rulingEventData,
  rulingOf,
  verdictOf,
} from '../../../src/bridge/approvals/approval-decision.js';
import type { StoredResponse } from '../../../src/state/types.js';

function response(fields: Partial<StoredResponse>): StoredResponse {
  return {
    instructions: '',
    notes: '',
    source: 'outbox/w1-a.txt',
    receivedAt: '2025-01-01T00:00:00.000Z',
    raw: '',
    ...fields,
  };
}

describe('approval decision (pure)', () => {
  it("an answer's first word decides, its source says who decided", () => {
    expect(rulingOf(response({ instructions: 'allow: tests only' }))).toEqual({
      decision: 'allow',
      decidedBy: 'person',
      via: 'outbox',
      reason: 'allow: tests only',
      recognized: true,
    });
    expect(
      rulingOf(response({ instructions: 'no', source: 'exec:codex' })),
    ).toMatchObject({
      decision: 'deny',
      decidedBy: 'controller',
      via: 'exec:codex',
    });
  });

  it('an answer with no decision word is an unrecognized deny', () => {
    const ruling = rulingOf(response({ instructions: 'what does it do?' }));
    expect(ruling).toMatchObject({ decision: 'deny', recognized: false });
    expect(rulingEventData(ruling)).toEqual({
      decision: 'deny',
      decidedBy: 'person',
      via: 'outbox',
      unrecognized: true,
    });
  });

  it('reads the raw answer when the instructions are empty, and denies on none', () => {
    expect(rulingOf(response({ raw: 'yes' })).decision).toBe('allow');
    expect(rulingOf(undefined)).toMatchObject({
      decision: 'deny',
      recognized: false,
      reason: '',
      decidedBy: 'controller',
      via: 'unknown',
    });
  });

  it("a rule's verdict decides and names itself; the reason is still the answer", () => {
    const ruling = rulingOf(
      response({ instructions: 'deny: macs rule "x" denies this' }),
      { decision: 'allow', decidedBy: 'rule', via: 'x' },
    );
    expect(ruling).toEqual({
      decision: 'allow',
      decidedBy: 'rule',
      via: 'x',
      reason: 'deny: macs rule "x" denies this',
      recognized: true,
    });
    expect(rulingEventData(ruling)).toEqual({
      decision: 'allow',
      decidedBy: 'rule',
      via: 'x',
    });
  });

  it('the verdict a request records', () => {
    const ruling = rulingOf(response({ instructions: 'ok' }));
    expect(verdictOf(ruling, '2025-01-01T00:00:01.000Z')).toEqual({
      decision: 'allow',
      decidedBy: 'person',
      via: 'outbox',
      reason: 'ok',
      at: '2025-01-01T00:00:01.000Z',
    });
  });
});
