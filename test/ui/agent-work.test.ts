// The agent detail's line about subagents and compactions (issue 32): the
// view showed neither. Strategy: snapshots with and without them, the
// line (and the detail panel it goes into) checked as text.
import { describe, expect, it } from 'vitest';
import { agentWorkLine } from '../../src/ui/agent-work.js';
import { buildDetailLines } from '../../src/ui/view-model.js';
import { ago, makeAgent, NOW } from './fixtures.js';

const run = (id: string, kind: string, stopped: boolean) => ({
  id,
  kind,
  startedAt: ago(120_000),
  stoppedAt: stopped ? ago(60_000) : null,
});

describe('agent work line', () => {
  it('says nothing for an agent with neither', () => {
    expect(agentWorkLine(makeAgent(), NOW)).toBeUndefined();
    expect(
      agentWorkLine(
        makeAgent({ subagents: null, compactions: 0, lastCompaction: null }),
        NOW,
      ),
    ).toBeUndefined();
  });

  it('names the running kinds, the finished count and the compactions', () => {
    const agent = makeAgent({
      subagents: {
        running: [run('a', 'Explore', false), run('b', 'Explore', false)],
        finished: [run('c', 'general-purpose', true)],
        finishedTotal: 4,
      },
      compactions: 2,
      lastCompaction: { at: ago(180_000), trigger: 'auto' },
    });
    expect(agentWorkLine(agent, NOW)).toBe(
      'subagents: 2 running (Explore ×2) · 4 finished · context compacted 2× (last auto, 3m ago)',
    );
    const detail = buildDetailLines(
      { kind: 'agent', key: 'a:worker-1', agent },
      200,
      NOW,
    )
      .map((l) => l.text)
      .join('\n');
    expect(detail).toContain('subagents: 2 running');
  });
});
