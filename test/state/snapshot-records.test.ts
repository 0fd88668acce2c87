import { describe, expect, it } from 'vitest';
import {
  approvalsOf,
  firstLineOf,
  isWaitingForPerson,
  lastAnswerOf,
  lastRoundTrip,
  newestAnswered,
  normalizeAgentState,
  toAgentSnapshot,
  toEventSnapshot,
  toRequestSnapshot,
} from '../../src/state/snapshot-records.js';
import { freshAgentState } from '../../src/state/store.js';
import type {
  AgentStateFile,
  RecentRequest,
  StoredResponse,
} from '../../src/state/types.js';
import { makeRecord } from './home-fixture.js';

const NOW = Date.parse('2025-03-01T12:00:00.000Z');

const recent = (over: Partial<RecentRequest> = {}): RecentRequest => ({
  id: 'w1-q-1',
  type: 'question',
  stage: 'delivered',
  detectedAt: '2025-03-01T11:50:00.000Z',
  firstLine: 'Which branch?',
  ...over,
});

const stateOf = (change: (s: AgentStateFile) => void = () => undefined) => {
  const state = freshAgentState('w1', 'claude', new Date(NOW - 60_000));
  change(state);
  return state;
};

describe('snapshot helpers', () => {
  it.each([
    [{ backend: 'file', stage: 'routed' }, true],
    [{ backend: 'file', stage: 'detected' }, true],
    [{ backend: 'file', stage: 'answered' }, false],
    [{ backend: 'exec', stage: 'routed' }, false],
    [{ backend: undefined, stage: 'detected' }, false],
  ] as const)('isWaitingForPerson(%o) is %s', (record, expected) => {
    expect(isWaitingForPerson(record)).toBe(expected);
  });

  it.each([
    ['one line', 'one line'],
    ['\n\n  \nsecond  \nthird', 'second'],
    ['', ''],
  ])('firstLineOf(%j) is %j', (text, expected) => {
    expect(firstLineOf(text)).toBe(expected);
  });
});

describe('request rows', () => {
  it('waits for a person when it fell back to the inbox from another answerer', () => {
    const record = makeRecord({ backend: 'exec', stage: 'routed' });
    expect(isWaitingForPerson(record, true)).toBe(true);
    expect(toRequestSnapshot(record, null, NOW, true)).toMatchObject({
      backend: 'file',
      waitingForPerson: true,
    });
    expect(toRequestSnapshot(record, null, NOW)).toMatchObject({
      backend: 'exec',
      waitingForPerson: false,
    });
  });

  it('shows the body and its first line with invisible characters escaped, and its age', () => {
    const row = toRequestSnapshot(
      makeRecord({ body: '\nok\u202Eevil\nmore' }),
      { branch: 'main' },
      NOW,
    );
    expect(row).toMatchObject({
      firstLine: 'ok<U+202E>evil',
      body: '\nok<U+202E>evil\nmore',
      ageMs: 120_000,
      context: { branch: 'main' },
      answer: null,
      decision: null,
    });
  });

  it('carries the answer and the decision of a request', () => {
    const response: StoredResponse = {
      instructions: 'allow',
      notes: '',
      source: 'outbox',
      receivedAt: '2025-03-01T11:59:00.000Z',
      raw: 'allow',
    };
    const row = toRequestSnapshot(
      makeRecord({
        stage: 'answered',
        response,
        decision: {
          decision: 'allow',
          decidedBy: 'person',
          via: 'outbox',
          reason: 'allow',
          at: '2025-03-01T11:59:00.000Z',
        },
      }),
      undefined,
      NOW,
    );
    expect(row.answer).toEqual({
      requestId: 'worker-1-q-17',
      stage: 'answered',
      instructions: 'allow',
      notes: '',
      source: 'outbox',
      receivedAt: '2025-03-01T11:59:00.000Z',
      deliveredAt: null,
    });
    expect(row.decision).toEqual({
      decision: 'allow',
      decidedBy: 'person',
      via: 'outbox',
      at: '2025-03-01T11:59:00.000Z',
    });
    expect(row.context).toBeNull();
  });
});

describe('agent rows', () => {
  it('counts open requests and those waiting for a person', () => {
    const state = stateOf((s) => {
      s.requests = {
        a: makeRecord({ id: 'a' }),
        b: makeRecord({ id: 'b', backend: 'exec' }),
        c: makeRecord({ id: 'c', backend: 'exec' }),
      };
      s.counters.detected = 5;
    });
    const row = toAgentSnapshot(state, {
      now: NOW,
      paused: true,
      inbox: new Set(['c']),
      bridge: { running: true, pid: 42 },
      lastResponse: null,
    });
    expect(row).toMatchObject({
      name: 'w1',
      stateAgeMs: 60_000,
      paused: true,
      bridge: { running: true, pid: 42 },
      counts: { pending: 3, waitingForPerson: 2, detected: 5 },
      exit: null,
      hooks: null,
    });
  });

  it('says how a dead agent ended', () => {
    const state = stateOf((s) => {
      s.state = 'dead';
      s.exitCode = 137;
      s.exitSignal = 9;
    });
    const facts = {
      now: NOW,
      paused: false,
      inbox: new Set<string>(),
      bridge: { running: false, pid: null },
      lastResponse: null,
    };
    expect(toAgentSnapshot(state, facts).exit).toEqual({
      code: 137,
      signal: 9,
      lastLines: [],
    });
  });

  it('times the newest delivered round trip', () => {
    expect(lastRoundTrip([])).toBeNull();
    expect(
      lastRoundTrip([
        recent({ id: 'open', deliveredAt: undefined }),
        recent({ deliveredAt: '2025-03-01T11:50:02.500Z' }),
        recent({ deliveredAt: '2025-03-01T11:50:09.000Z' }),
      ]),
    ).toBe(2500);
  });

  it("shows the newest answer, the archived one or else the state file's", () => {
    const list = [
      recent({ id: 'no-answer' }),
      recent({ id: 'empty', stage: 'answered-empty' }),
      recent({ id: 'older', instructions: 'go' }),
    ];
    const newest = newestAnswered(list);
    expect(newest?.id).toBe('empty');
    expect(newestAnswered([recent()])).toBeUndefined();
    expect(lastAnswerOf(list[2]!, null)).toEqual({
      requestId: 'older',
      stage: 'delivered',
      instructions: 'go',
      notes: '',
      source: null,
      receivedAt: null,
      deliveredAt: null,
    });
    const stored: StoredResponse = {
      instructions: 'go on',
      notes: 'carefully',
      source: 'exec',
      receivedAt: '2025-03-01T11:50:01.000Z',
      raw: 'go on\ncarefully',
    };
    expect(lastAnswerOf(list[2]!, stored)).toMatchObject({
      instructions: 'go on',
      notes: 'carefully',
      source: 'exec',
    });
  });

  it('lists decided approvals only, with the first line escaped', () => {
    const state = stateOf((s) => {
      s.recent = [
        recent({ id: 'q' }),
        recent({
          id: 'ap',
          type: 'approval',
          firstLine: 'May I\u202E push?',
          decision: {
            decidedBy: 'rule',
            via: 'tests',
            reason: 'x',
            at: '2025-03-01T11:51:00.000Z',
          },
        }),
      ];
    });
    expect(approvalsOf(state)).toEqual([
      {
        id: 'ap',
        agent: 'w1',
        stage: 'delivered',
        firstLine: 'May I<U+202E> push?',
        decision: null,
        decidedBy: 'rule',
        via: 'tests',
        at: '2025-03-01T11:51:00.000Z',
      },
    ]);
  });

  it('fills what a state file from an older bridge lacks', () => {
    const old = {
      version: 1,
      agent: 'old',
      state: 'idle',
      stateSource: 'screen',
      stateSince: '2025-03-01T11:00:00.000Z',
      logOffset: 0,
      updatedAt: '2025-03-01T11:00:00.000Z',
      counters: { detected: 3 },
    } as unknown as AgentStateFile;
    const state = normalizeAgentState(old);
    expect(state).toMatchObject({
      preset: 'generic',
      requests: {},
      recent: [],
      counters: { detected: 3, delivered: 0, duplicates: 0, malformed: 0 },
      state: 'idle',
    });
  });
});

describe('event rows', () => {
  it('gives absent fields as null', () => {
    expect(
      toEventSnapshot({ ts: 't', agent: 'w1', type: 'state.changed' }),
    ).toEqual({
      ts: 't',
      agent: 'w1',
      type: 'state.changed',
      requestId: null,
      data: null,
    });
  });
});
