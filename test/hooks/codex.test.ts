import { describe, expect, it } from 'vitest';
import { planCodexNotify } from '../../src/hooks/codex.js';

describe("Codex's notify program", () => {
  it('a finished turn marks the agent idle', () => {
    const p = planCodexNotify(
      JSON.stringify({
        type: 'agent-turn-complete',
        'thread-id': 'b5f6c1c2-1111-2222-3333-444455556666',
        'turn-id': '12345',
        cwd: '/work/repo',
        'input-messages': ['Rename `foo` to `bar` and update the callsites.'],
        'last-assistant-message':
          'Rename complete and verified `cargo build` succeeds.',
      }),
    );
    expect(p.reply).toBeUndefined();
    expect(p.observation).toEqual({ state: 'idle', consecutiveBlocks: 0 });
    expect(p.events).toEqual([
      {
        type: 'hook.notify',
        data: {
          type: 'agent-turn-complete',
          session: 'b5f6c1c2-1111-2222-3333-444455556666',
          turn: '12345',
          chars: 52,
        },
      },
    ]);
  });

  it('other notification types are recorded without a state', () => {
    const p = planCodexNotify('{"type":"approval-requested"}');
    expect(p.observation).toBeUndefined();
    expect(p.events[0]).toMatchObject({ data: { type: 'approval-requested' } });
  });

  it.each(['', 'agent-turn-complete', '{"type":', '[]'])(
    'bad payload %j: an error event only',
    (raw) => {
      const p = planCodexNotify(raw);
      expect(p.observation).toBeUndefined();
      expect(p.events[0]?.type).toBe('error');
    },
  );
});
