import { describe, expect, it } from 'vitest';
import {
  describeEventData,
  formatAge,
  formatClock,
  msUntilAgeChanges,
  msUntilNextAgeChange,
  AGE_BATCH_MS,
  formatDuration,
  formatRoundTrip,
  truncate,
  wrapText,
} from '../../src/ui/view-format.js';

describe('view formatting', () => {
  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [65_000, '1m05s'],
    [3_600_000, '1h00m'],
    [90_061_000, '1d01h'],
    [-5, '0s'],
  ])('formatDuration(%d) is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([
    [null, '—'],
    [850, '850ms'],
    [8200, '8.2s'],
    [125_000, '2m05s'],
  ])('formatRoundTrip(%s) is %s', (ms, text) => {
    expect(formatRoundTrip(ms)).toBe(text);
  });

  it.each([
    [0, '<1m'],
    [9_999, '<1m'],
    [59_999, '<1m'],
    [60_000, '1m'],
    [65_000, '1m'],
    [3_599_999, '59m'],
    [3_600_000, '1h00m'],
    [90_061_000, '1d01h'],
  ])('formatAge(%d) is %s: whole minutes, then hours', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });

  it('knows when an age on screen changes next, so an idle view redraws rarely', () => {
    expect(msUntilAgeChanges(8_300)).toBe(51_700);
    expect(msUntilAgeChanges(12_300)).toBe(47_700);
    expect(msUntilAgeChanges(59_000)).toBe(1_000);
    expect(msUntilAgeChanges(125_000)).toBe(55_000);
    expect(msUntilAgeChanges(90_061_000)).toBe(3_539_000);
    const now = Date.parse('2025-03-01T12:00:00.000Z');
    expect(
      msUntilNextAgeChange(
        ['2025-03-01T11:55:00.000Z', '2025-03-01T11:58:30.000Z', 'junk'],
        now,
      ),
    ).toBe(30_000);
    expect(msUntilNextAgeChange([], now)).toBeUndefined();
  });

  // Issue 31: a hub's view of three hosts with 32 agents each, all started
  // together, drew its whole frame once for each second in which some of
  // their ages reached the next minute (5 frames within 4 s). Strategy: ages
  // changing within a few seconds of the first change together, each at most
  // AGE_BATCH_MS late; one far off keeps its own frame.
  it('draws ages that change a few seconds apart in one frame', () => {
    const now = Date.parse('2025-03-01T12:00:00.000Z');
    const together = [
      '2025-03-01T11:55:01.000Z', // 5m at 12:00:01
      '2025-03-01T11:55:03.500Z', // 5m at 12:00:03.5
      '2025-03-01T11:55:04.000Z', // 5m at 12:00:04
      '2025-03-01T11:55:30.000Z', // 5m at 12:00:30: not waited for
    ];
    const wait = msUntilNextAgeChange(together, now);
    expect(wait).toBe(4_000);
    expect(wait! - 1_000).toBeLessThanOrEqual(AGE_BATCH_MS);
    for (const iso of together.slice(0, 3))
      expect(formatAge(now + wait! - Date.parse(iso))).toBe('5m');
    expect(msUntilNextAgeChange(together.slice(3), now)).toBe(30_000);
  });

  // Issue 22: a fresh session's view drew its whole frame each second (then
  // each ten seconds) while its agents' ages were under a minute, most of an
  // idle session's CPU in its first minute. Strategy: agents whose states
  // changed a few seconds apart, all under a minute old, give one wake-up at
  // the first one's minute, not one a second.
  it('schedules no redraw while every age is under a minute', () => {
    const now = Date.parse('2025-03-01T12:00:00.000Z');
    const fresh = [
      '2025-03-01T11:59:58.000Z',
      '2025-03-01T11:59:57.250Z',
      '2025-03-01T11:59:51.000Z',
    ];
    expect(msUntilNextAgeChange(fresh, now)).toBe(51_000);
    for (let t = now; t < now + 51_000; t += 1000)
      for (const iso of fresh)
        expect(formatAge(t - Date.parse(iso))).toBe('<1m');
  });

  it('formats clock times in a given zone', () => {
    expect(formatClock('2025-03-01T11:59:48.000Z', 'UTC')).toBe('11:59:48');
    expect(formatClock('not a date')).toBe('--:--:--');
  });

  it('truncates with an ellipsis, counting characters not bytes', () => {
    expect(truncate('héllo wörld', 6)).toBe('héllo…');
    expect(truncate('short', 10)).toBe('short');
  });

  it('wraps at spaces, hard-wraps long words, keeps blank lines', () => {
    expect(wrapText('one two three four', 9)).toEqual([
      'one two',
      'three',
      'four',
    ]);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('a\r\n\nb\tc', 10)).toEqual(['a', '', 'b  c']);
  });

  it('describes common events in a few words', () => {
    expect(
      describeEventData('state.changed', {
        from: 'idle',
        to: 'working',
        source: 'hook',
      }),
    ).toBe('idle → working (hook)');
    expect(
      describeEventData('request.answered', { notes: 'n1\nn2', chars: 3 }),
    ).toBe('notes: n1');
    expect(describeEventData('bridge.started', { pane: '%3' })).toBe(
      '{"pane":"%3"}',
    );
    expect(describeEventData('bridge.stopped', null)).toBe('');
    // Issue 29: why an answer waits, and a preset that followed the program.
    expect(
      describeEventData('delivery.waiting', {
        reason: 'pane runs `sleep 30`, not at a prompt',
        why: { type: 'shell-busy', running: 'sleep 30' },
      }),
    ).toBe('pane runs `sleep 30`, not at a prompt');
    expect(
      describeEventData('preset.changed', {
        from: 'shell',
        to: 'claude',
        program: 'claude',
      }),
    ).toBe('preset shell → claude (pane runs claude)');
  });
});
