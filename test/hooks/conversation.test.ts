import { describe, expect, it } from 'vitest';
import { conversationFromHook } from '../../src/hooks/reported-conversation.js';

const ID = '0c366cc4-3d9e-49ae-b4fa-71c59f9c2b54';

describe('the conversation a hook reports', () => {
  it("takes Claude Code's session_id and transcript_path", () => {
    const raw = JSON.stringify({
      session_id: ID,
      transcript_path: `/home/u/.claude/projects/-w/${ID}.jsonl`,
      hook_event_name: 'SessionStart',
    });
    expect(conversationFromHook('SessionStart', raw, undefined)).toEqual({
      id: ID,
      source: 'claude-hook',
      transcript: `/home/u/.claude/projects/-w/${ID}.jsonl`,
    });
  });

  it.each([
    ['not JSON', 'nope'],
    ['no id', JSON.stringify({ transcript_path: '/t' })],
    ['not a UUID', JSON.stringify({ session_id: 'fake-123' })],
    ['an id with a command', JSON.stringify({ session_id: `${ID} --x` })],
  ])('takes nothing from %s', (_name, raw) => {
    expect(conversationFromHook('Stop', raw, undefined)).toBeUndefined();
  });

  it('keeps no relative transcript path', () => {
    const raw = JSON.stringify({ session_id: ID, transcript_path: 'x.jsonl' });
    expect(conversationFromHook('Stop', raw, undefined)).toEqual({
      id: ID,
      source: 'claude-hook',
    });
  });

  it("takes Codex's thread only for the person's recorded thread", () => {
    const raw = JSON.stringify({
      type: 'agent-turn-complete',
      'thread-id': ID,
    });
    expect(
      conversationFromHook('notify', raw, { recorded: true, source: 'user' }),
    ).toEqual({ id: ID, source: 'codex-notify' });
    // Older Codex: recorded, no source.
    expect(conversationFromHook('notify', raw, { recorded: true })).toEqual({
      id: ID,
      source: 'codex-notify',
    });
    // A title thread, an unrecorded thread, nothing known: not taken.
    expect(
      conversationFromHook('notify', raw, {
        recorded: true,
        source: 'thread_title',
      }),
    ).toBeUndefined();
    expect(
      conversationFromHook('notify', raw, { recorded: false }),
    ).toBeUndefined();
    expect(conversationFromHook('notify', raw, undefined)).toBeUndefined();
  });
});
