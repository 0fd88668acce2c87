import { describe, expect, it } from 'vitest';
import type {
  EventSnapshot,
  RequestSnapshot,
} from '../../src/state/snapshot-schema.js';
import { buildRequestPaths } from '../../src/web/request-path.js';

const event = (
  type: string,
  requestId: string | null,
  ts: string,
): EventSnapshot => ({ ts, agent: 'w1', type, requestId, data: null });

describe('buildRequestPaths: each request with the time it reached each stage', () => {
  it('orders steps by time, keeps the first of each, newest request first', () => {
    const paths = buildRequestPaths(
      [],
      [
        event('request.confirmed', 'w1-q1', '2026-11-27T10:00:04Z'),
        event('request.detected', 'w1-q1', '2026-11-27T10:00:00Z'),
        event('request.routed', 'w1-q1', '2026-11-27T10:00:01Z'),
        event('request.answered', 'w1-q1', '2026-11-27T10:00:02Z'),
        event('request.delivered', 'w1-q1', '2026-11-27T10:00:03Z'),
        event('request.detected', 'w1-q2', '2026-11-27T10:01:00Z'),
        event('request.routed', 'w1-q2', '2026-11-27T10:01:00Z'),
        event('request.routed', 'w1-q2', '2026-11-27T10:01:05Z'),
        event('state.changed', null, '2026-11-27T10:01:06Z'),
      ],
    );
    expect(paths.map((p) => p.id)).toEqual(['w1-q2', 'w1-q1']);
    expect(paths[1]?.steps.map((s) => s.stage)).toEqual([
      'detected',
      'routed',
      'answered',
      'delivered',
      'confirmed',
    ]);
    expect(paths[0]?.steps).toEqual([
      { stage: 'detected', at: '2026-11-27T10:01:00Z' },
      { stage: 'routed', at: '2026-11-27T10:01:00Z' },
    ]);
  });

  it("a pending request's detection comes from its record when its event is gone", () => {
    const request = {
      id: 'w1-q9',
      agent: 'w1',
      firstLine: 'Which branch?',
      detectedAt: '2026-11-27T09:00:00Z',
    } as RequestSnapshot;
    expect(buildRequestPaths([request], [])).toEqual([
      {
        id: 'w1-q9',
        agent: 'w1',
        firstLine: 'Which branch?',
        steps: [{ stage: 'detected', at: '2026-11-27T09:00:00Z' }],
      },
    ]);
  });

  // The page had its own table from event type to step, which missed the
  // event an unconfirmed delivery leaves (`delivery.unconfirmed`): such a
  // request's path showed no end. Strategy: the path of one, drawn with the
  // ledger's table (state/ledger.ts STAGE_OF_EVENT), ends `unconfirmed`.
  it('ends the path of a delivery left unconfirmed', () => {
    const paths = buildRequestPaths(
      [],
      [
        event('request.detected', 'w1-q3', '2026-11-27T10:00:00Z'),
        event('request.answered', 'w1-q3', '2026-11-27T10:00:02Z'),
        event('request.delivered', 'w1-q3', '2026-11-27T10:00:03Z'),
        event('delivery.unconfirmed', 'w1-q3', '2026-11-27T10:00:04Z'),
      ],
    );
    expect(paths[0]?.steps.map((s) => s.stage)).toEqual([
      'detected',
      'answered',
      'delivered',
      'unconfirmed',
    ]);
  });
});
