import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import {
  formatStopReason,
  nextQueuedAnswer,
  planStop,
  planStopFailure,
  STOP_BLOCK_CAP,
  stopContinuation,
} from '../../src/hooks/claude-stop.js';
import type { HookContext } from '../../src/hooks/types.js';
import { freshAgentState } from '../../src/state/store.js';
import type { RequestRecord } from '../../src/state/types.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');

function answered(
  id: string,
  instructions: string,
  extra: Partial<RequestRecord> = {},
): RequestRecord {
  return {
    id,
    agent: 'w1',
    workerId: id.replace(/^w1-/, ''),
    type: 'question',
    priority: 'normal',
    attributes: {},
    bodyHash: 'x'.repeat(40),
    body: 'may I?',
    stage: 'answered',
    detectedAt: '2026-11-21T09:00:00.000Z',
    answeredAt: '2026-11-21T09:10:00.000Z',
    response: {
      instructions,
      notes: '',
      source: 'outbox',
      receivedAt: '2026-11-21T09:10:00.000Z',
      raw: `WORKER INSTRUCTIONS:\n${instructions}`,
    },
    ...extra,
  };
}

function ctx(
  records: RequestRecord[],
  overrides: Partial<HookContext> = {},
): HookContext {
  const agentState = freshAgentState('w1', 'claude', NOW);
  for (const r of records) agentState.requests[r.id] = r;
  return {
    agent: 'w1',
    now: NOW,
    agentState,
    previous: undefined,
    policy: defaultPolicy(),
    workerPrompt: '',
    unavailable: new Set(),
    paused: false,
    ...overrides,
  };
}

describe('nextQueuedAnswer', () => {
  it('takes the earliest answer, then the earliest detected on a tie', () => {
    const records = [
      answered('w1-late', 'b', { answeredAt: '2026-11-21T09:30:00.000Z' }),
      answered('w1-second', 'a', {
        detectedAt: '2026-11-21T09:05:00.000Z',
      }),
      answered('w1-first', 'a', { detectedAt: '2026-11-21T09:01:00.000Z' }),
    ];
    expect(nextQueuedAnswer(ctx(records))?.id).toBe('w1-first');
    expect(
      nextQueuedAnswer(ctx(records, { unavailable: new Set(['w1-first']) }))
        ?.id,
    ).toBe('w1-second');
  });

  it('has nothing without a state, or while delivery is paused', () => {
    const records = [answered('w1-q1', 'go')];
    expect(
      nextQueuedAnswer(ctx(records, { agentState: undefined })),
    ).toBeUndefined();
    expect(nextQueuedAnswer(ctx(records, { paused: true }))).toBeUndefined();
  });
});

describe('the hand-over text', () => {
  it('names the request by its worker id and keeps only clean instructions', () => {
    expect(formatStopReason(answered('w1-q7', 'Go ahead.\n\n\n'))).toBe(
      'The controller answered your request q7:\n\nGo ahead.',
    );
    expect(
      formatStopReason(answered('w1-q8', '\u001b[31mred\u001b[0m text')),
    ).not.toContain('\u001b');
  });

  it('falls back to the request id without a worker id', () => {
    const record = answered('w1-q9', 'ok');
    delete record.workerId;
    expect(formatStopReason(record)).toContain('your request w1-q9:');
  });

  it('continues the turn through additionalContext, never a block', () => {
    expect(stopContinuation('text')).toEqual({
      hookSpecificOutput: { hookEventName: 'Stop', additionalContext: 'text' },
    });
  });
});

describe('planStop', () => {
  it('counts the blocks of one chain of stops, up to the cap', () => {
    const records = [answered('w1-q1', 'go')];
    const previous = { event: 'Stop', ts: NOW.toISOString() };
    const first = planStop(
      { stop_hook_active: true },
      ctx(records, { previous }),
    );
    expect(first.observation).toEqual({
      state: 'working',
      delivered: 'w1-q1',
      consecutiveBlocks: 1,
    });
    const capped = planStop(
      { stop_hook_active: true },
      ctx(records, {
        previous: { ...previous, consecutiveBlocks: STOP_BLOCK_CAP + 2 },
      }),
    );
    expect(capped.claim).toBeUndefined();
    expect(capped.events[0]?.data).toEqual({
      stopHookActive: true,
      capped: true,
      blocks: STOP_BLOCK_CAP + 2,
    });
  });
});

describe('planStopFailure', () => {
  it('records an unknown error when Claude Code names none, and clips long text', () => {
    const p = planStopFailure({ error_details: 'x'.repeat(500) });
    expect(p.observation).toEqual({ state: 'error', consecutiveBlocks: 0 });
    expect(p.events[0]?.data?.error).toBe('unknown');
    expect(String(p.events[0]?.data?.message)).toHaveLength(200);
    expect(planStopFailure({}).events[0]?.data).toEqual({ error: 'unknown' });
  });
});
