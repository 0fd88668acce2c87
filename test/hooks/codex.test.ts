import { describe, expect, it } from 'vitest';
import {
  codexThreadId,
  planCodexNotify,
} from '../../src/hooks/codex-notify.js';

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

// Codex 0.169.0 runs notify for the thread the person talks to and for a
// one-turn thread of its own that names it (a new thread id each prompt).
describe("Codex's notify program: auxiliary threads", () => {
  const payload = (thread: string) =>
    JSON.stringify({
      type: 'agent-turn-complete',
      'thread-id': thread,
      'turn-id': 'turn-1',
      cwd: '/work/repo',
      client: 'codex-tui',
      'input-messages': ['Generate a concise, single-line task title'],
      'last-assistant-message': 'Add health check',
    });

  it('a thread Codex did not record (a title thread) leaves the state alone', () => {
    const p = planCodexNotify(payload('title-1'), { recorded: false });
    expect(p.observation).toBeUndefined();
    expect(p.events[0]).toMatchObject({
      type: 'hook.notify',
      data: { session: 'title-1', auxiliary: true },
    });
  });

  it('a recorded thread that is not the person’s leaves the state alone', () => {
    const p = planCodexNotify(payload('sub-1'), {
      recorded: true,
      source: 'subagent',
    });
    expect(p.observation).toBeUndefined();
    expect(p.events[0]?.data).toMatchObject({
      auxiliary: true,
      threadSource: 'subagent',
    });
  });

  it.each([
    ['the person’s thread', { recorded: true, source: 'user' } as const],
    ['a record without a source (older Codex)', { recorded: true } as const],
    ['nothing known', undefined],
  ])('%s marks the agent idle', (_name, info) => {
    const p = planCodexNotify(payload('main-1'), info);
    expect(p.observation).toEqual({ state: 'idle', consecutiveBlocks: 0 });
    expect(p.events[0]?.data).not.toHaveProperty('auxiliary');
  });

  it('codexThreadId reads the thread id', () => {
    expect(codexThreadId(payload('abc'))).toBe('abc');
    expect(codexThreadId('{"type":"x"}')).toBeUndefined();
    expect(codexThreadId('not json')).toBeUndefined();
  });
});
