import { describe, expect, it } from 'vitest';
import {
  buildDetailLines,
  requestStatus,
  selectAgentRows,
  selectUsageTotal,
  selectEventRows,
  selectItems,
  selectRefusedRows,
  selectRequestRows,
  whyNotAnswerable,
} from '../../src/ui/view-model.js';
import { selectIncompleteRows } from '../../src/ui/incomplete-rows.js';
import {
  NOW,
  ago,
  makeAgent,
  makeEvent,
  makeRequest,
  makeSnapshot,
} from './fixtures.js';

describe('selectors', () => {
  const snapshot = makeSnapshot({
    agents: [
      makeAgent({
        paused: true,
        bridge: { running: false, pid: null },
        lastRoundTripMs: 1234,
      }),
    ],
    requests: [makeRequest({ priority: 'high' })],
    events: [
      makeEvent(),
      makeEvent({ type: 'error', data: { message: 'boom' } }),
    ],
  });

  it('agent rows carry plain, formatted props', () => {
    expect(selectAgentRows(snapshot, NOW)).toEqual([
      {
        key: 'agent:worker-1',
        name: 'worker-1',
        preset: 'claude',
        state: 'idle',
        stateColour: 'green',
        source: 'screen',
        since: '<1m',
        pane: '%3',
        pending: 0,
        waiting: 0,
        delivered: 0,
        lastRoundTrip: '1.2s',
        usage: '-',
        flags: 'paused · no bridge',
      },
    ]);
  });

  it('usage: a cell per agent and the total of every agent (docs/usage.md)', () => {
    const usage = (costUsd: number | null) => ({
      model: 'm',
      inputTokens: 1000,
      outputTokens: 500,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd,
    });
    const two = {
      ...snapshot,
      agents: [
        makeAgent({ name: 'a', usage: usage(0.5) }),
        makeAgent({ name: 'b', usage: usage(0.25) }),
        makeAgent({ name: 'c' }),
      ],
    };
    expect(selectAgentRows(two, NOW).map((r) => r.usage)).toEqual([
      '1.50k $0.50',
      '1.50k $0.25',
      '-',
    ]);
    expect(selectUsageTotal(two)).toBe('3.00k $0.75');
    // A model without a price: the total's cost is unknown, never a guess.
    two.agents[1] = makeAgent({ name: 'b', usage: usage(null) });
    expect(selectUsageTotal(two)).toBe('3.00k $?');
    expect(selectUsageTotal({ ...snapshot, agents: [makeAgent()] })).toBe(
      undefined,
    );
  });

  it('request rows and items, in drawing order', () => {
    expect(selectRequestRows(snapshot, NOW)[0]).toMatchObject({
      key: 'request:worker-1-q-17',
      age: '2m',
      status: 'needs you',
      colour: 'yellow',
      waitingForPerson: true,
      high: true,
    });
    expect(selectItems(snapshot).map((i) => i.key)).toEqual([
      'agent:worker-1',
      'request:worker-1-q-17',
    ]);
  });

  it('refused rows: red, marked, why and what to do; never selectable (issue 25, point 5)', () => {
    const withRefused = makeSnapshot({
      requests: [makeRequest()],
      refused: [
        {
          agent: 'worker-2',
          reason: 'max-bytes',
          at: ago(5_000),
          firstLine: '<<CONTROLLER_REQUEST id=big>>',
          lines: 40,
          bytes: 65_540,
          message: null,
        },
      ],
    });
    expect(selectRefusedRows(withRefused, NOW)).toEqual([
      expect.objectContaining({
        agent: 'worker-2',
        type: 'max-bytes',
        status: 'refused',
        colour: 'red',
        age: '<1m',
        high: true,
        waitingForPerson: false,
        firstLine:
          'too long (65540+ bytes), never raised; tell it: macs send worker-2 … · <<CONTROLLER_REQUEST id=big>>',
      }),
    ]);
    expect(selectItems(withRefused).map((i) => i.kind)).toEqual(['request']);
    expect(selectRefusedRows(makeSnapshot(), NOW)).toEqual([]);
  });

  it('event rows: newest last, limited', () => {
    const rows = selectEventRows(snapshot.events, 1, 'UTC');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'error',
      summary: 'boom',
      colour: 'red',
      time: '11:59:55',
    });
  });

  it.each([
    [{ waitingForPerson: true }, 'needs you', undefined],
    [
      { waitingForPerson: false, backend: 'exec' },
      'at exec',
      'answered by the exec backend',
    ],
    [
      { waitingForPerson: false, stage: 'delivering' as const },
      'delivering',
      'already answered',
    ],
    [
      { waitingForPerson: false, stage: 'detected' as const, backend: null },
      'detected',
      'not waiting for an answer yet',
    ],
  ])('request %o: status %s', (over, status, why) => {
    const request = makeRequest(over);
    expect(requestStatus(request)).toBe(status);
    if (why === undefined) expect(whyNotAnswerable(request)).toBeUndefined();
    else expect(whyNotAnswerable(request)).toContain(why);
  });
});

describe('buildDetailLines', () => {
  it('a request: header, body, context (text as is), its answer, the agent’s last notes', () => {
    const agent = makeAgent({
      lastResponse: {
        requestId: 'worker-1-q-16',
        stage: 'delivered',
        instructions: 'Use vitest.',
        notes: 'Plan it.',
        source: null,
        receivedAt: null,
        deliveredAt: ago(60_000),
      },
    });
    const request = makeRequest({
      stage: 'answered',
      waitingForPerson: false,
      context: 'screen line 1\nscreen line 2',
      answer: {
        requestId: 'worker-1-q-17',
        stage: 'answered',
        instructions: 'Later.',
        notes: '',
        source: 'outbox/x.txt',
        receivedAt: ago(3000),
        deliveredAt: null,
      },
    });
    const text = buildDetailLines(
      { kind: 'request', key: 'k', request, agent },
      80,
      NOW,
    )
      .map((l) => l.text)
      .join('\n');
    expect(text).toContain('already answered');
    expect(text).toContain('── request');
    expect(text).toContain('screen line 1\nscreen line 2');
    expect(text).toContain('── answer (not yet delivered)');
    expect(text).toContain('worker-1-q-17 · answered <1m ago');
    expect(text).toContain('instructions: Later.\nnotes: (none)');
    expect(text).toContain('worker-1-q-16 · delivered 1m ago');
    expect(text).toContain('notes: Plan it.');
  });

  it('every line fits the width', () => {
    const request = makeRequest({
      body: 'x'.repeat(300),
      context: { long: 'y '.repeat(200) },
    });
    for (const line of buildDetailLines(
      { kind: 'request', key: 'k', request, agent: undefined },
      30,
      NOW,
    ))
      expect([...line.text].length).toBeLessThanOrEqual(30);
  });
});

describe('incomplete rows (issue 29)', () => {
  // A block without its end marker had no row: the view now draws one per
  // agent's notice, yellow, with its first line and what the worker must
  // do, and never as a request to answer.
  it('draws each with its first line and what the worker must do', () => {
    const snapshot = makeSnapshot({
      incomplete: [
        {
          agent: 'worker-2',
          since: ago(20_000),
          reason: 'prompt',
          firstLine: '<<CONTROLLER_REQUEST id=p>>',
          head: ['Which port should I use?'],
          lines: 1,
          requestId: 'worker-2-p',
          message: 'worker-2 printed a request without its end marker',
        },
      ],
    });
    expect(selectIncompleteRows(snapshot, NOW)).toEqual([
      expect.objectContaining({
        id: '',
        agent: 'worker-2',
        status: 'incomplete',
        colour: 'yellow',
        waitingForPerson: false,
        firstLine:
          'Which port should I use? · no end marker: not answerable until worker-2 prints <<CONTROLLER_REQUEST_END>> or asks again',
      }),
    ]);
  });
});
