// The activity file's fold (state/agent-activity.ts): subagents running and
// finished, compactions. Strategy: pure lines in, a summary out; torn and
// unknown lines are skipped, a stop without a start still counts, and a
// new conversation ends the subagents the old one left running.
import { describe, expect, it } from 'vitest';
import {
  countCompactions,
  FINISHED_SHOWN,
  parseActivity,
  summarizeActivity,
  type ActivityLine,
} from '../../src/state/agent-activity.js';

const at = (s: number) =>
  new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();

describe('agent activity', () => {
  it('folds starts and stops into running and finished, newest first', () => {
    const lines: ActivityLine[] = [
      { ts: at(1), kind: 'subagent-start', id: 'a', type: 'Explore' },
      { ts: at(2), kind: 'subagent-start', id: 'b', type: 'general-purpose' },
      { ts: at(3), kind: 'subagent-stop', id: 'a', type: 'Explore' },
      { ts: at(4), kind: 'subagent-stop', id: 'z', type: 'Plan' },
    ];
    const s = summarizeActivity(lines);
    expect(s.running).toEqual([
      { id: 'b', kind: 'general-purpose', startedAt: at(2), stoppedAt: null },
    ]);
    expect(s.finished).toEqual([
      { id: 'z', kind: 'Plan', startedAt: null, stoppedAt: at(4) },
      { id: 'a', kind: 'Explore', startedAt: at(1), stoppedAt: at(3) },
    ]);
    expect(s.finishedTotal).toBe(2);
    expect(s.compactions).toBe(0);
    expect(s.lastCompaction).toBeNull();
  });

  it('a new conversation ends the subagents still running; a compaction does not', () => {
    const s = summarizeActivity([
      { ts: at(1), kind: 'subagent-start', id: 'a', type: 'Explore' },
      { ts: at(2), kind: 'compacted', trigger: 'auto' },
      { ts: at(3), kind: 'subagent-start', id: 'b', type: 'Explore' },
      { ts: at(4), kind: 'session', source: 'clear' },
    ]);
    expect(s.running).toEqual([]);
    expect(s.finishedTotal).toBe(2);
    expect(s.finished[0]).toMatchObject({ id: 'b', stoppedAt: at(4) });
    expect(s.compactions).toBe(1);
    expect(s.lastCompaction).toEqual({ at: at(2), trigger: 'auto' });
  });

  it('lists at most FINISHED_SHOWN finished subagents and counts them all', () => {
    const lines: ActivityLine[] = [];
    for (let i = 0; i < FINISHED_SHOWN + 5; i += 1)
      lines.push({ ts: at(i), kind: 'subagent-stop', id: `s${i}`, type: 't' });
    const s = summarizeActivity(lines);
    expect(s.finished).toHaveLength(FINISHED_SHOWN);
    expect(s.finishedTotal).toBe(FINISHED_SHOWN + 5);
    expect(s.finished[0]?.id).toBe(`s${FINISHED_SHOWN + 4}`);
  });

  it('skips torn and unknown lines', () => {
    const text = [
      JSON.stringify({ ts: at(1), kind: 'compacted', trigger: 'manual' }),
      '{"ts":"x","kind":"subagent-st',
      JSON.stringify({ ts: at(2), kind: 'teleported' }),
      JSON.stringify({ ts: at(3), kind: 'subagent-start', id: 7, type: 'x' }),
      '',
    ].join('\n');
    expect(parseActivity(text)).toEqual([
      { ts: at(1), kind: 'compacted', trigger: 'manual' },
    ]);
  });

  it('counts compactions since a time', () => {
    const lines: ActivityLine[] = [
      { ts: at(1), kind: 'compacted', trigger: 'manual' },
      { ts: at(5), kind: 'compacted', trigger: 'auto' },
      { ts: at(6), kind: 'session', source: 'startup' },
    ];
    expect(countCompactions(lines)).toBe(2);
    expect(countCompactions(lines, new Date(at(3)))).toBe(1);
  });
});
