import { describe, expect, it } from 'vitest';
import {
  addDetected,
  applyStep,
  canMove,
  outcomeOf,
  STAGE_MOVES,
  detectedRecord,
  RECENT_MAX,
  recordStep,
  retireRecord,
  STAGE_RANK,
  toRecent,
  type LedgerStep,
  type NewRequest,
} from '../../src/state/ledger.js';
import { freshAgentState } from '../../src/state/store.js';
import type {
  ApprovalVerdict,
  RequestRecord,
  RequestStage,
  StoredResponse,
} from '../../src/state/types.js';

const T = (s: number) => new Date(Date.UTC(2025, 2, 1, 12, 0, s)).toISOString();

const NEW: NewRequest = {
  id: 'w1-q1',
  agent: 'w1',
  workerId: 'q1',
  type: 'question',
  priority: 'high',
  attributes: { id: 'q1', priority: 'high' },
  bodyHash: 'h1',
  body: 'Which database?\nPostgres or SQLite',
  detectedAt: T(0),
  pane: '%3',
  panePid: 77,
  session: 's-1',
};

const record = (over: Partial<RequestRecord> = {}): RequestRecord => ({
  ...detectedRecord(NEW),
  ...over,
});

const response = (instructions: string): StoredResponse => ({
  instructions,
  notes: 'for the person',
  source: 'outbox/w1-q1.txt',
  receivedAt: T(5),
  raw: `${instructions}\nNOTES:\nfor the person`,
});

const verdict: ApprovalVerdict = {
  decision: 'allow',
  decidedBy: 'controller',
  via: 'mcp:decide_approval',
  reason: 'allow: fine',
  at: T(5),
};

const ALL_STAGES = Object.keys(STAGE_RANK) as RequestStage[];
const ENDS = [
  'answered-empty',
  'confirmed',
  'unconfirmed',
  'expired',
  'dismissed',
] as const;

/** Freeze a record and everything in it: a step that writes into it throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('detectedRecord and addDetected', () => {
  it('makes a record in stage detected with exactly what its detector knows', () => {
    expect(detectedRecord(NEW)).toEqual({ ...NEW, stage: 'detected' });
    expect(detectedRecord(NEW)).not.toBe(NEW);
  });

  it('adds the record to the open requests under its id and counts it', () => {
    const state = freshAgentState('w1', 'generic');
    state.counters.detected = 4;
    const r = detectedRecord(NEW);
    addDetected(state, r);
    expect(state.requests['w1-q1']).toBe(r);
    expect(state.counters).toMatchObject({ detected: 5, duplicates: 0 });
  });
});

describe('STAGE_RANK', () => {
  it('orders the open stages along the path, every end after them', () => {
    const open: RequestStage[] = [
      'detected',
      'routed',
      'answered',
      'delivering',
      'pasted',
      'delivered',
    ];
    for (let i = 1; i < open.length; i += 1)
      expect(STAGE_RANK[open[i] as RequestStage]).toBeGreaterThan(
        STAGE_RANK[open[i - 1] as RequestStage],
      );
    for (const end of ENDS)
      expect(STAGE_RANK[end]).toBeGreaterThan(STAGE_RANK.delivered);
  });
});

describe('STAGE_MOVES: the one table of moves', () => {
  const UNTYPED: RequestStage[] = ['detected', 'routed', 'answered'];

  it.each(ALL_STAGES.flatMap((from) => ALL_STAGES.map((to) => ({ from, to }))))(
    '$from -> $to only forward, ends unanswered only while untyped',
    ({ from, to }) => {
      const forward = STAGE_RANK[to] > STAGE_RANK[from];
      const unansweredEnd = to === 'expired' || to === 'dismissed';
      expect(canMove(from, to)).toBe(
        forward && (!unansweredEnd || UNTYPED.includes(from)),
      );
    },
  );

  it('lists every stage, and the ends move nowhere', () => {
    expect(Object.keys(STAGE_MOVES).sort()).toEqual([...ALL_STAGES].sort());
    for (const end of ENDS) expect(STAGE_MOVES[end]).toEqual([]);
  });

  it('says what a step does: moved, kept or refused', () => {
    expect(
      outcomeOf(record({ stage: 'answered' }), { type: 'delivered', at: T(1) }),
    ).toEqual({ type: 'moved', from: 'answered', to: 'delivered' });
    expect(
      outcomeOf(record({ stage: 'answered' }), {
        type: 'submitting',
        at: T(1),
      }),
    ).toEqual({ type: 'kept', stage: 'answered' });
    expect(
      outcomeOf(record({ stage: 'delivered' }), {
        type: 'closed',
        stage: 'expired',
        reason: 'late',
        by: 'timeout',
        at: T(2),
      }),
    ).toEqual({ type: 'refused', from: 'delivered', to: 'expired' });
  });

  it('reopens only an answered request (the crash rebuild)', () => {
    expect(
      applyStep(record({ stage: 'answered' }), {
        type: 'reopened',
        stage: 'routed',
      }).stage,
    ).toBe('routed');
    for (const from of ALL_STAGES.filter((s) => s !== 'answered'))
      expect(
        outcomeOf(record({ stage: from }), {
          type: 'reopened',
          stage: 'detected',
        }).type,
      ).not.toBe('moved');
  });

  it('does not record the reason of a close it refused', () => {
    const after = applyStep(record({ stage: 'delivered' }), {
      type: 'closed',
      stage: 'dismissed',
      reason: 'late',
      by: 'person',
      at: T(3),
    });
    expect(after.stage).toBe('delivered');
    expect(after.closed).toBeUndefined();
  });
});

describe('applyStep: each step', () => {
  const cases: {
    name: string;
    from: RequestStage;
    step: LedgerStep;
    expected: Partial<RequestRecord>;
  }[] = [
    {
      name: 'routed',
      from: 'detected',
      step: { type: 'routed', at: T(1), backend: 'exec' },
      expected: { stage: 'routed', routedAt: T(1), backend: 'exec' },
    },
    {
      name: 'answered with instructions',
      from: 'routed',
      step: { type: 'answered', at: T(2), response: response('Use Postgres') },
      expected: {
        stage: 'answered',
        answeredAt: T(2),
        response: response('Use Postgres'),
      },
    },
    {
      name: 'answered with a decision',
      from: 'routed',
      step: {
        type: 'answered',
        at: T(2),
        response: response('allow: fine'),
        decision: verdict,
      },
      expected: {
        stage: 'answered',
        answeredAt: T(2),
        response: response('allow: fine'),
        decision: verdict,
      },
    },
    {
      name: 'answered with nothing to type',
      from: 'routed',
      step: { type: 'answered', at: T(2), response: response(' \n\t ') },
      expected: {
        stage: 'answered-empty',
        answeredAt: T(2),
        response: response(' \n\t '),
      },
    },
    {
      name: 'answered-empty',
      from: 'answered',
      step: { type: 'answered-empty' },
      expected: { stage: 'answered-empty' },
    },
    {
      name: 'delivering',
      from: 'answered',
      step: { type: 'delivering', at: T(3) },
      expected: { stage: 'delivering', deliveringAt: T(3) },
    },
    {
      name: 'pasted',
      from: 'delivering',
      step: { type: 'pasted', at: T(4) },
      expected: { stage: 'pasted', pastedAt: T(4) },
    },
    {
      name: 'submitting (no stage of its own)',
      from: 'pasted',
      step: { type: 'submitting', at: T(5) },
      expected: { stage: 'pasted', submittingAt: T(5) },
    },
    {
      name: 'delivered',
      from: 'pasted',
      step: { type: 'delivered', at: T(6) },
      expected: { stage: 'delivered', deliveredAt: T(6) },
    },
    {
      name: 'confirmed',
      from: 'delivered',
      step: { type: 'confirmed', at: T(7) },
      expected: { stage: 'confirmed', confirmedAt: T(7) },
    },
    {
      name: 'unconfirmed',
      from: 'delivered',
      step: { type: 'unconfirmed' },
      expected: { stage: 'unconfirmed' },
    },
    {
      name: 'closed (expired)',
      from: 'routed',
      step: {
        type: 'closed',
        stage: 'expired',
        reason: 'pane gone',
        by: 'bridge',
        at: T(8),
      },
      expected: {
        stage: 'expired',
        closed: { reason: 'pane gone', by: 'bridge', at: T(8) },
      },
    },
    {
      name: 'closed (dismissed)',
      from: 'answered',
      step: {
        type: 'closed',
        stage: 'dismissed',
        reason: 'not needed',
        by: 'person',
        at: T(8),
      },
      expected: {
        stage: 'dismissed',
        closed: { reason: 'not needed', by: 'person', at: T(8) },
      },
    },
  ];

  it.each(cases)('$name', ({ from, step, expected }) => {
    const before = record({ stage: from });
    const after = applyStep(before, step);
    expect(after).toEqual({ ...before, ...expected });
  });

  it('records no decision when the answer brings none (an earlier one stays)', () => {
    const after = applyStep(record({ stage: 'routed' }), {
      type: 'answered',
      at: T(2),
      response: response('go'),
    });
    expect(after).not.toHaveProperty('decision');
    const kept = applyStep(record({ stage: 'routed', decision: verdict }), {
      type: 'answered',
      at: T(2),
      response: response('go'),
    });
    expect(kept.decision).toEqual(verdict);
  });

  it.each(cases.map((c) => ({ name: c.name, step: c.step, from: c.from })))(
    'never changes the record it is given ($name)',
    ({ step, from }) => {
      const before = deepFreeze(
        record({ stage: from, response: response('x') }),
      );
      const copy = structuredClone(before);
      const after = applyStep(before, step);
      expect(before).toEqual(copy);
      expect(after).not.toBe(before);
    },
  );
});

describe('applyStep: the stage only moves forward', () => {
  const stepTo: Partial<Record<RequestStage, LedgerStep>> = {
    routed: { type: 'routed', at: T(9), backend: 'exec' },
    answered: { type: 'answered', at: T(9), response: response('do it') },
    'answered-empty': { type: 'answered-empty' },
    delivering: { type: 'delivering', at: T(9) },
    pasted: { type: 'pasted', at: T(9) },
    delivered: { type: 'delivered', at: T(9) },
    confirmed: { type: 'confirmed', at: T(9) },
    unconfirmed: { type: 'unconfirmed' },
    expired: {
      type: 'closed',
      stage: 'expired',
      reason: 'r',
      by: 'bridge',
      at: T(9),
    },
    dismissed: {
      type: 'closed',
      stage: 'dismissed',
      reason: 'r',
      by: 'person',
      at: T(9),
    },
  };
  const pairs = ALL_STAGES.flatMap((from) =>
    Object.entries(stepTo).map(([to, step]) => ({
      from,
      to: to as RequestStage,
      step: step,
    })),
  );

  it.each(pairs)('$from + step to $to', ({ from, to, step }) => {
    const after = applyStep(record({ stage: from }), step);
    expect(after.stage).toBe(canMove(from, to) ? to : from);
  });

  it("records a step's own fields even when the stage stays", () => {
    // A hook confirmed the request before the bridge recorded its delivery.
    const after = applyStep(record({ stage: 'confirmed' }), {
      type: 'delivered',
      at: T(6),
    });
    expect(after).toMatchObject({ stage: 'confirmed', deliveredAt: T(6) });
    const routedLate = applyStep(record({ stage: 'answered' }), {
      type: 'routed',
      at: T(1),
      backend: 'interactive',
    });
    expect(routedLate).toMatchObject({
      stage: 'answered',
      routedAt: T(1),
      backend: 'interactive',
    });
  });

  it('does not move between the ends (all of the same rank)', () => {
    expect(
      applyStep(record({ stage: 'confirmed' }), { type: 'unconfirmed' }).stage,
    ).toBe('confirmed');
    // A confirmation of a request that ended otherwise records nothing: no
    // `confirmedAt` on an unconfirmed request (every writer alike).
    const late = applyStep(record({ stage: 'unconfirmed' }), {
      type: 'confirmed',
      at: T(9),
    });
    expect(late.stage).toBe('unconfirmed');
    expect(late.confirmedAt).toBeUndefined();
  });
});

describe("applyStep: 'reached' (the crash rebuild)", () => {
  it.each(ALL_STAGES.flatMap((from) => ALL_STAGES.map((to) => ({ from, to }))))(
    '$from reached $to',
    ({ from, to }) => {
      const before = record({ stage: from });
      const after = applyStep(before, { type: 'reached', stage: to, at: T(9) });
      if (canMove(from, to)) expect(after.stage).toBe(to);
      // Nothing is recorded of a step the record is past already.
      else expect(after).toBe(before);
    },
  );

  it("stamps the stage's time field only when the stage moves forward", () => {
    const routed = record({ stage: 'routed', routedAt: T(1), backend: 'file' });
    expect(
      applyStep(routed, {
        type: 'reached',
        stage: 'routed',
        at: T(9),
        backend: 'exec',
      }),
    ).toEqual(routed);
    const cases: [RequestStage, keyof RequestRecord][] = [
      ['routed', 'routedAt'],
      ['answered', 'answeredAt'],
      ['answered-empty', 'answeredAt'],
      ['delivering', 'deliveringAt'],
      ['delivered', 'deliveredAt'],
      ['confirmed', 'confirmedAt'],
    ];
    for (const [stage, field] of cases)
      expect(
        applyStep(record(), { type: 'reached', stage, at: T(9) })[field],
      ).toBe(T(9));
  });

  it('stamps no time without one, nor for a stage without a time field', () => {
    expect(
      applyStep(record(), { type: 'reached', stage: 'delivered' }),
    ).toEqual({ ...record(), stage: 'delivered' });
    expect(
      applyStep(record(), { type: 'reached', stage: 'pasted', at: T(9) }),
    ).toEqual({ ...record(), stage: 'pasted' });
  });

  it('takes the backend only for routed', () => {
    expect(
      applyStep(record(), {
        type: 'reached',
        stage: 'routed',
        at: T(1),
        backend: 'exec',
      }),
    ).toMatchObject({ stage: 'routed', routedAt: T(1), backend: 'exec' });
    expect(
      applyStep(record(), {
        type: 'reached',
        stage: 'answered',
        at: T(2),
        backend: 'exec',
      }),
    ).not.toHaveProperty('backend');
  });

  it('never changes the record it is given', () => {
    const before = deepFreeze(record());
    const after = applyStep(before, {
      type: 'reached',
      stage: 'routed',
      at: T(1),
      backend: 'exec',
    });
    expect(before.stage).toBe('detected');
    expect(after.stage).toBe('routed');
  });
});

describe('recordStep', () => {
  it('writes the new fields onto the same object', () => {
    const state = freshAgentState('w1', 'generic');
    const r = record();
    addDetected(state, r);
    recordStep(r, { type: 'routed', at: T(1), backend: 'file' });
    recordStep(r, { type: 'answered', at: T(2), response: response('ok') });
    expect(state.requests['w1-q1']).toBe(r);
    expect(r).toMatchObject({
      stage: 'answered',
      routedAt: T(1),
      backend: 'file',
      answeredAt: T(2),
    });
  });

  it('leaves the object as it is for a step it is past', () => {
    const r = record({ stage: 'delivered', deliveredAt: T(6) });
    const copy = structuredClone(r);
    recordStep(r, { type: 'reached', stage: 'answered', at: T(9) });
    expect(r).toEqual(copy);
  });
});

describe('toRecent', () => {
  it('keeps the first line (120 characters), the instructions (500) and the decision', () => {
    const r = record({
      stage: 'delivered',
      body: `${'a'.repeat(150)}\nsecond line`,
      deliveredAt: T(6),
      response: response('i'.repeat(600)),
      decision: verdict,
    });
    expect(toRecent(r)).toEqual({
      id: 'w1-q1',
      type: 'question',
      stage: 'delivered',
      detectedAt: T(0),
      deliveredAt: T(6),
      firstLine: 'a'.repeat(120),
      instructions: 'i'.repeat(500),
      decision: verdict,
    });
  });

  it('leaves out what the request does not have', () => {
    expect(toRecent(record({ stage: 'expired' }))).toEqual({
      id: 'w1-q1',
      type: 'question',
      stage: 'expired',
      detectedAt: T(0),
      firstLine: 'Which database?',
    });
  });
});

describe('retireRecord', () => {
  it('moves a finished request from the open set to the front of recent', () => {
    const state = freshAgentState('w1', 'generic');
    const older = record({ id: 'w1-old', stage: 'confirmed' });
    const r = record({ stage: 'delivered' });
    addDetected(state, older);
    addDetected(state, r);
    retireRecord(state, older);
    retireRecord(state, r);
    expect(state.requests).toEqual({});
    expect(state.recent.map((x) => [x.id, x.stage])).toEqual([
      ['w1-q1', 'delivered'],
      ['w1-old', 'confirmed'],
    ]);
  });

  it('lists a request retired again once, with its latest stage', () => {
    const state = freshAgentState('w1', 'generic');
    retireRecord(state, record({ stage: 'delivered' }));
    retireRecord(state, record({ id: 'w1-other', stage: 'expired' }));
    retireRecord(state, record({ stage: 'confirmed' }));
    expect(state.recent.map((x) => [x.id, x.stage])).toEqual([
      ['w1-q1', 'confirmed'],
      ['w1-other', 'expired'],
    ]);
  });

  it(`keeps the newest ${String(RECENT_MAX)}`, () => {
    const state = freshAgentState('w1', 'generic');
    for (let n = 0; n < RECENT_MAX + 5; n += 1)
      retireRecord(state, record({ id: `w1-n${String(n)}`, stage: 'expired' }));
    expect(state.recent).toHaveLength(RECENT_MAX);
    expect(state.recent[0]?.id).toBe(`w1-n${String(RECENT_MAX + 4)}`);
    expect(state.recent.at(-1)?.id).toBe('w1-n5');
  });
});
