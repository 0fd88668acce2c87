import { describe, expect, it } from 'vitest';
import type { BackendRequest } from '../../../src/backends/types.js';
import {
  describeGuard,
  personCall,
} from '../../../src/bridge/route/person-call.js';

const request: BackendRequest = {
  id: 'worker-1-q1',
  agent: 'worker-1',
  type: 'question',
  priority: 'normal',
  attributes: {},
  body: `Which database should I use?\n${'more '.repeat(40)}`,
  bodyHash: 'a'.repeat(64),
  detectedAt: '2026-01-02T03:04:05.000Z',
  preset: 'generic',
};

describe('describeGuard', () => {
  it('says why each loop guard sent a request to a person', () => {
    expect(describeGuard({ reason: 'rate-limit', count: 5, limit: 5 })).toBe(
      '5 requests in the last hour (limit 5); sent to a person instead of an AI answerer',
    );
    expect(
      describeGuard({
        reason: 'repeat',
        previousId: 'worker-1-q0',
        answeredAt: '2026-01-02T03:00:00.000Z',
      }),
    ).toBe(
      'the same request as worker-1-q0, answered at 2026-01-02T03:00:00.000Z; sent to a person instead of asking an AI again',
    );
  });
});

describe('personCall', () => {
  it('shows the first line of a request routed to a person', () => {
    expect(personCall(request)).toEqual({
      agent: 'worker-1',
      requestId: 'worker-1-q1',
      reason: 'waiting-for-person',
      message:
        'worker-1 waits for your answer (question): Which database should I use?',
      data: {},
    });
  });

  it('cuts a long first line at 100 characters', () => {
    const long = { ...request, body: 'x'.repeat(300) };
    expect(personCall(long).message).toBe(
      `worker-1 waits for your answer (question): ${'x'.repeat(100)}`,
    );
  });

  it('names the answerer it fell back from, and the pane', () => {
    expect(
      personCall({ ...request, pane: '%3' }, undefined, 'exec'),
    ).toMatchObject({
      reason: 'waiting-for-person',
      pane: '%3',
      data: { fallbackFrom: 'exec' },
    });
  });

  it('gives a loop guard as the reason, with its details', () => {
    const guard = { reason: 'rate-limit', count: 9, limit: 8 } as const;
    expect(personCall(request, guard)).toEqual({
      agent: 'worker-1',
      requestId: 'worker-1-q1',
      reason: 'rate-limit',
      message: `worker-1 needs you: ${describeGuard(guard)}`,
      data: { reason: 'rate-limit', count: 9, limit: 8 },
    });
  });
});
