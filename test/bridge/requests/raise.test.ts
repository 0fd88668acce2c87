// The one way in (issue 23): a block, a hook's approval and a dialog are
// raised by one function, which saves the record before its event and
// applies the approval rules to approvals only.
import { describe, expect, it } from 'vitest';
import { raiseRequest } from '../../../src/bridge/requests/raise.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import { detectedRecord } from '../../../src/state/ledger.js';
import { freshAgentState } from '../../../src/state/store.js';
import type { RequestRecord } from '../../../src/state/types.js';

function harness(allow: object[] = []) {
  const state = freshAgentState('w1', 'claude');
  const steps: string[] = [];
  const events: Omit<EventInput, 'agent'>[] = [];
  const host = {
    config: ConfigSchema.parse({ policy: { allow, deny: [] } }),
    current: () => state,
    saveNow: () => {
      steps.push(`save:${Object.keys(state.requests).join(',')}`);
      return Promise.resolve();
    },
    emit: (event: Omit<EventInput, 'agent'>) => {
      steps.push(`emit:${event.type}`);
      events.push(event);
      return Promise.resolve();
    },
  };
  return { state, steps, events, host };
}

const base = (over: Partial<RequestRecord> = {}): RequestRecord => ({
  ...detectedRecord({
    id: 'w1-q1',
    agent: 'w1',
    type: 'question',
    priority: 'normal',
    attributes: {},
    bodyHash: '0'.repeat(40),
    body: 'may I run npm test?',
    detectedAt: '2025-01-01T00:00:00.000Z',
  }),
  ...over,
});

describe('raiseRequest', () => {
  it('adds, records what was seen, saves, then leaves request.detected', async () => {
    const { state, steps, events, host } = harness();
    const record = base();
    const result = await raiseRequest(host, record, { chars: 19 }, (s) => {
      s.counters.duplicates = 7;
    });
    expect(result).toEqual({ type: 'raised' });
    expect(state.requests['w1-q1']).toBe(record);
    expect(state.counters).toMatchObject({ detected: 1, duplicates: 7 });
    expect(steps).toEqual(['save:w1-q1', 'emit:request.detected']);
    expect(events[0]).toEqual({
      type: 'request.detected',
      requestId: 'w1-q1',
      data: { chars: 19 },
    });
  });

  it('answers an approval a rule decides, and no block whatever it says', async () => {
    const approval = {
      source: 'PreToolUse' as const,
      tool: 'Bash',
      subject: 'npm test',
      fingerprint: 'f',
    };
    const rules = [{ name: 'tests', pattern: '^npm test$' }];
    const approved = harness(rules);
    const record = base({ type: 'approval', origin: 'hook', approval });
    const result = await raiseRequest(approved.host, record, {});
    expect(result).toMatchObject({
      type: 'ruled',
      verdict: { decision: 'allow', rule: { name: 'tests' } },
    });
    expect(record.stage).toBe('answered');
    expect(approved.steps).toEqual([
      'save:w1-q1',
      'emit:request.detected',
      'save:w1-q1',
      'emit:request.answered',
    ]);
    const block = harness(rules);
    const plain = base();
    expect(await raiseRequest(block.host, plain, {})).toEqual({
      type: 'raised',
    });
    expect(plain.stage).toBe('detected');
  });
});
