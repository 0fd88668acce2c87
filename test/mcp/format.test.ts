import { describe, expect, it } from 'vitest';
import {
  agentLine,
  agentSummary,
  requestDetail,
  requestLine,
  requestSummary,
  requestText,
} from '../../src/mcp/tool-format.js';
import type {
  AgentSnapshot,
  RequestSnapshot,
} from '../../src/state/snapshot-schema.js';

function request(over: Partial<RequestSnapshot> = {}): RequestSnapshot {
  return {
    id: 'worker-1-q-17',
    agent: 'worker-1',
    workerId: 'q-17',
    type: 'question',
    priority: 'normal',
    stage: 'routed',
    backend: 'file',
    waitingForPerson: true,
    detectedAt: '2025-03-01T11:58:00.000Z',
    ageMs: 61_600,
    firstLine: 'Should I migrate now?',
    body: 'Should I migrate now?\nOptions: (a) now (b) later',
    attributes: { id: 'q-17' },
    context: null,
    answer: null,
    decision: null,
    waits: null,
    ...over,
  };
}

function agent(over: Partial<AgentSnapshot> = {}): AgentSnapshot {
  return {
    name: 'worker-1',
    preset: 'claude',
    pane: '%3',
    state: 'working',
    stateSource: 'hook',
    stateSince: '2025-03-01T11:59:30.000Z',
    stateAgeMs: 29_500,
    paused: false,
    bridge: { running: true, pid: 4242 },
    counts: {
      pending: 1,
      waitingForPerson: 1,
      detected: 1,
      delivered: 0,
      duplicates: 0,
      malformed: 0,
    },
    lastRoundTripMs: null,
    lastResponse: null,
    hooks: null,
    exit: null,
    usage: null,
    updatedAt: '2025-03-01T11:59:30.000Z',
    ...over,
  };
}

describe('requests as the tools show them', () => {
  it('summarises a request with its age in seconds and whether it waits for an answer', () => {
    expect(requestSummary(request())).toEqual({
      id: 'worker-1-q-17',
      agent: 'worker-1',
      type: 'question',
      stage: 'routed',
      priority: 'normal',
      waitingForAnswer: true,
      backend: 'file',
      ageSec: 62,
      detectedAt: '2025-03-01T11:58:00.000Z',
      firstLine: 'Should I migrate now?',
    });
  });

  it('lists a request on one line', () => {
    expect(requestLine(request())).toBe(
      'worker-1-q-17  agent=worker-1 type=question stage=routed (waiting for an answer) age=62s: Should I migrate now?',
    );
    expect(
      requestLine(request({ waitingForPerson: false, stage: 'delivering' })),
    ).toBe(
      'worker-1-q-17  agent=worker-1 type=question stage=delivering age=62s: Should I migrate now?',
    );
  });

  it('gives a request in full: body, attributes, context, answer', () => {
    const answer = {
      requestId: 'worker-1-q-17',
      stage: 'answered' as const,
      instructions: 'Later.',
      notes: '',
      source: 'outbox/worker-1-q-17.txt',
      receivedAt: '2025-03-01T11:59:00.000Z',
      deliveredAt: null,
    };
    const r = request({ context: { branch: 'main' }, answer });
    expect(requestDetail(r)).toEqual({
      ...requestSummary(r),
      workerId: 'q-17',
      detectedAt: '2025-03-01T11:58:00.000Z',
      body: r.body,
      attributes: { id: 'q-17' },
      context: { branch: 'main' },
      answer,
    });
    expect(requestText(r)).toBe(
      [
        'request worker-1-q-17 from worker-1 (type question, priority normal, stage routed, waiting for an answer)',
        '',
        'Should I migrate now?\nOptions: (a) now (b) later',
        '',
        'context:',
        '{\n  "branch": "main"\n}',
        '',
        'answer (answered):',
        'Later.',
      ].join('\n'),
    );
  });

  it('leaves out the context and answer a request does not have', () => {
    expect(requestText(request({ waitingForPerson: false }))).toBe(
      'request worker-1-q-17 from worker-1 (type question, priority normal, stage routed)\n\nShould I migrate now?\nOptions: (a) now (b) later',
    );
  });
});

describe('agents as list_agents shows them', () => {
  const requests = [
    request(),
    request({ id: 'worker-1-q-18' }),
    request({ id: 'worker-2-q-1', agent: 'worker-2' }),
  ];

  it('summarises an agent with the ids of its own pending requests', () => {
    expect(agentSummary(agent(), requests)).toEqual({
      name: 'worker-1',
      preset: 'claude',
      state: 'working',
      stateSource: 'hook',
      stateAgeSec: 30,
      stateSince: '2025-03-01T11:59:30.000Z',
      pane: '%3',
      paused: false,
      bridgeRunning: true,
      pendingRequests: ['worker-1-q-17', 'worker-1-q-18'],
      usage: null,
      teammate: null,
    });
  });

  // Issue 32: list_agents did not say which agents are Claude Code
  // teammates, as `status --json` (agents[].teammate) and the other doors do.
  // Strategy: a teammate's summary carries its teammate field and its line
  // names it `<lead>/<teammate>`; any other agent's has `teammate: null`.
  it('says which agent is a teammate, and of which lead', () => {
    const teammate = {
      lead: 'worker-1',
      name: 'alice',
      shownAs: 'worker-1/alice',
      team: 'team-1',
    };
    const alice = agent({ name: 'worker-1.alice', pane: '%5', teammate });
    expect(agentSummary(alice, []).teammate).toEqual(teammate);
    expect(agentLine(alice, [])).toMatch(
      /^worker-1\.alice {2}teammate=worker-1\/alice preset=claude /,
    );
  });

  it("carries the agent's usage (docs/usage.md) in the summary and the line", () => {
    const usage = {
      model: 'claude-opus-4-8',
      inputTokens: 1200,
      outputTokens: 300,
      cacheReadTokens: 10_000,
      cacheWriteTokens: null,
      costUsd: 0.0185,
    };
    expect(agentSummary(agent({ usage }), []).usage).toEqual(usage);
    expect(agentLine(agent({ usage }), [])).toMatch(/ usage=11\.5k \$0\.02$/);
  });

  it('lists an agent on one line, saying when it is paused or its bridge is down', () => {
    expect(agentLine(agent(), requests)).toBe(
      'worker-1  preset=claude state=working (from hook) pane=%3 pending=worker-1-q-17,worker-1-q-18 usage=-',
    );
    expect(
      agentLine(
        agent({
          name: 'worker-3',
          pane: null,
          paused: true,
          bridge: { running: false, pid: null },
        }),
        requests,
      ),
    ).toBe(
      'worker-3  preset=claude state=working (from hook) pane=- paused bridge-down pending=- usage=-',
    );
  });
});
