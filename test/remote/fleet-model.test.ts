// A hub reads each host every half minute in case a change notice was lost.
// Each read measures the host's clock offset again, so the host's times (an
// agent's stateSince, a request's detectedAt, corrected by that offset) and
// the round trip moved by a few ms at every read, and the live view and the
// web page drew everything again for a read that changed nothing: most of an
// idle hub's CPU (issue 31). sameHostRows says two reads show the same rows
// unless something a person sees changed.
import { describe, expect, it } from 'vitest';
import {
  HOST_TIME_JITTER_MS,
  sameHostRows,
  type HostView,
} from '../../src/remote/fleet-model.js';

function read(shiftMs: number, changes: Partial<HostView> = {}): HostView {
  const at = (iso: string) => new Date(Date.parse(iso) + shiftMs).toISOString();
  return {
    name: 'h1',
    ssh: 'h1',
    home: '/srv/p',
    link: 'up',
    since: '2026-11-29T10:00:00.000Z',
    version: '1.0.0',
    rttMs: 40 + shiftMs,
    clockOffsetMs: 120 + shiftMs,
    error: null,
    agents: [
      {
        name: 'h1/a1',
        hostName: 'a1',
        host: 'h1',
        preset: 'generic',
        state: 'idle',
        stateSource: 'screen',
        stateAgeSec: 70 + shiftMs,
        stateSince: at('2026-11-29T10:01:00.000Z'),
        pane: '%1',
        paused: false,
        bridgeRunning: true,
        pendingRequests: ['h1/r1'],
      },
    ],
    requests: [
      {
        id: 'h1/r1',
        hostId: 'r1',
        host: 'h1',
        agent: 'h1/a1',
        type: 'question',
        stage: 'routed',
        waitingForAnswer: true,
        ageSec: 12 + shiftMs,
        detectedAt: at('2026-11-29T10:02:00.000Z'),
        firstLine: 'Which database?',
        body: 'Which database?\nA) pg\nB) sqlite',
      },
    ],
    heldAnswers: 0,
    ...changes,
  };
}

describe('sameHostRows', () => {
  it('a read that only measured the link and the clock again is the same', () => {
    expect(sameHostRows(read(0), read(7))).toBe(true);
    expect(sameHostRows(read(0), read(-HOST_TIME_JITTER_MS))).toBe(true);
  });

  it('a time moved beyond the jitter is a change (a state ended and began again)', () => {
    expect(sameHostRows(read(0), read(HOST_TIME_JITTER_MS + 1))).toBe(false);
  });

  it('what a person sees changing is a change', () => {
    const base = read(0);
    expect(sameHostRows(base, read(3, { link: 'down' }))).toBe(false);
    expect(sameHostRows(base, read(3, { heldAnswers: 1 }))).toBe(false);
    const working = read(3);
    working.agents[0]!.state = 'working';
    expect(sameHostRows(base, working)).toBe(false);
    const answered = read(3);
    answered.requests[0]!.stage = 'answered';
    expect(sameHostRows(base, answered)).toBe(false);
    expect(sameHostRows(base, read(3, { requests: [] }))).toBe(false);
    const unknownSince = read(0);
    unknownSince.agents[0]!.stateSince = null;
    expect(sameHostRows(base, unknownSince)).toBe(false);
  });
});
