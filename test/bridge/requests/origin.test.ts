import { describe, expect, it } from 'vitest';
import { originMismatch } from '../../../src/bridge/requests/origin.js';

describe('originMismatch: who may take an answer', () => {
  const now = { pane: '%3', panePid: 200, session: 's2' };
  it.each([
    [
      'the same pane, program and session',
      { pane: '%3', panePid: 200, session: 's2' },
      undefined,
    ],
    ['a record of an older version (no origin)', {}, undefined],
    ['another session', { session: 's1' }, /earlier macs session \(s1\)/],
    [
      'another pane',
      { pane: '%1' },
      /asked in pane %1; the agent now runs in pane %3/,
    ],
    [
      'a restarted program',
      { pane: '%3', panePid: 100 },
      /restarted since it asked \(pid 100, now 200\)/,
    ],
  ])('%s', (_name, record, expected) => {
    const reason = originMismatch(record, now);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });

  it('a request of a session, seen by a bridge outside any session', () => {
    expect(originMismatch({ session: 's1' }, { pane: '%3' })).toMatch(
      /session s1, which has ended/,
    );
  });
});
