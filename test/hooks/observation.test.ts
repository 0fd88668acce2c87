import { describe, expect, it } from 'vitest';
import { mergeObservation } from '../../src/hooks/observation.js';
import type { HookObservation } from '../../src/state/hook-files.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const previous: HookObservation = {
  event: 'Stop',
  ts: '2026-11-21T09:00:00.000Z',
  state: 'working',
  delivered: 'w1-q1',
  consecutiveBlocks: 2,
  lastPromptAt: '2026-11-21T08:00:00.000Z',
};

describe('mergeObservation', () => {
  it("takes the plan's state and counter, and stamps the event and time", () => {
    expect(
      mergeObservation(
        'Stop',
        { observation: { state: 'idle', consecutiveBlocks: 0 }, events: [] },
        previous,
        NOW,
      ),
    ).toEqual({
      event: 'Stop',
      ts: NOW.toISOString(),
      state: 'idle',
      consecutiveBlocks: 0,
      lastPromptAt: previous.lastPromptAt,
    });
  });

  it('carries the state and the counter forward when the event says nothing, but never a hand-over', () => {
    expect(
      mergeObservation('Notification', { events: [] }, previous, NOW),
    ).toEqual({
      event: 'Notification',
      ts: NOW.toISOString(),
      state: 'working',
      consecutiveBlocks: 2,
      lastPromptAt: previous.lastPromptAt,
    });
  });

  it('records a hand-over and the time of a new prompt', () => {
    expect(
      mergeObservation(
        'Stop',
        { observation: { delivered: 'w1-q2' }, events: [] },
        undefined,
        NOW,
      ),
    ).toEqual({ event: 'Stop', ts: NOW.toISOString(), delivered: 'w1-q2' });
    expect(
      mergeObservation('UserPromptSubmit', { events: [] }, previous, NOW)
        .lastPromptAt,
    ).toBe(NOW.toISOString());
  });

  it('leaves out what nobody knows yet', () => {
    expect(
      mergeObservation('SessionStart', { events: [] }, undefined, NOW),
    ).toEqual({ event: 'SessionStart', ts: NOW.toISOString() });
  });

  it("keeps Claude Code's transcript path, carried forward by later hooks (usage, docs/usage.md)", () => {
    const first = mergeObservation(
      'SessionStart',
      { events: [], transcriptPath: '/c/projects/p/s.jsonl' },
      previous,
      NOW,
    );
    expect(first.transcriptPath).toBe('/c/projects/p/s.jsonl');
    expect(
      mergeObservation('Notification', { events: [] }, first, NOW)
        .transcriptPath,
    ).toBe('/c/projects/p/s.jsonl');
  });
});
