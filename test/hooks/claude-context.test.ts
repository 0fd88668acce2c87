// Claude Code's subagent and compaction hooks (docs/hooks.md). Before this,
// SubagentStart, SubagentStop and PreCompact were not installed and were
// only recorded as `hook.<event>` when called; a SessionStart with source
// `compact` gave the protocol back but counted nothing and marked the agent
// `idle`, although an automatic compaction runs inside a turn (the bridge
// could then type into a working agent). Strategy: plan each event from
// the inputs Claude Code 2.1.197 sends (read from its bundle) and check the
// events, the activity lines, the observation and the reply.
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import {
  CLAUDE_HOOK_EVENTS,
  planClaudeHook,
} from '../../src/hooks/claude-hook-protocol.js';
import type { HookContext } from '../../src/hooks/types.js';
import { freshAgentState } from '../../src/state/store.js';
import type { RequestRecord } from '../../src/state/types.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const PROTOCOL = '# Working under macs\nPrint <<CONTROLLER_REQUEST>> blocks.';

const base = (event: string) => ({
  session_id: 'abc123',
  transcript_path: '/home/u/.claude/projects/p/abc123.jsonl',
  cwd: '/work/repo',
  permission_mode: 'default',
  hook_event_name: event,
});

function ctx(overrides: Partial<HookContext> = {}): HookContext {
  return {
    agent: 'w1',
    now: NOW,
    agentState: undefined,
    previous: undefined,
    policy: defaultPolicy(),
    workerPrompt: PROTOCOL,
    unavailable: new Set(),
    paused: false,
    ...overrides,
  };
}

const plan = (event: string, input: unknown, c: Partial<HookContext> = {}) =>
  planClaudeHook(event, JSON.stringify(input), ctx(c));

function openRequest(id: string, body: string): RequestRecord {
  return {
    id: `w1-${id}`,
    agent: 'w1',
    workerId: id,
    type: 'question',
    priority: 'normal',
    attributes: {},
    bodyHash: 'x'.repeat(40),
    body,
    stage: 'routed',
    detectedAt: '2026-11-21T09:00:00.000Z',
  };
}

describe('Claude Code subagents and compaction', () => {
  it('installs SubagentStart, SubagentStop and PreCompact', () => {
    expect(CLAUDE_HOOK_EVENTS).toEqual(
      expect.arrayContaining(['SubagentStart', 'SubagentStop', 'PreCompact']),
    );
  });

  it('SubagentStart records the subagent and its kind, leaving the state', () => {
    const p = plan('SubagentStart', {
      ...base('SubagentStart'),
      agent_id: 'a1b2',
      agent_type: 'Explore',
    });
    expect(p.observation?.state).toBeUndefined();
    expect(p.events).toEqual([
      {
        type: 'hook.SubagentStart',
        data: { session: 'abc123', subagent: 'a1b2', kind: 'Explore' },
      },
    ]);
    expect(p.activity).toEqual([
      { kind: 'subagent-start', id: 'a1b2', type: 'Explore' },
    ]);
    expect(p.reply).toBeUndefined();
  });

  it('SubagentStop records subagent.stopped with the kind and replies nothing', () => {
    const p = plan('SubagentStop', {
      ...base('SubagentStop'),
      agent_id: 'a1b2',
      agent_type: 'general-purpose',
      agent_transcript_path: '/home/u/.claude/projects/p/agent-a1b2.jsonl',
      last_assistant_message: 'Found 3 files.',
      stop_hook_active: false,
    });
    expect(p.reply).toBeUndefined();
    expect(p.observation?.state).toBeUndefined();
    expect(p.events).toContainEqual({
      type: 'subagent.stopped',
      data: { subagent: 'a1b2', kind: 'general-purpose', session: 'abc123' },
    });
    expect(p.activity).toEqual([
      { kind: 'subagent-stop', id: 'a1b2', type: 'general-purpose' },
    ]);
  });

  it('a subagent without a type is of kind unknown', () => {
    const p = plan('SubagentStop', { ...base('SubagentStop'), agent_id: 'x' });
    expect(p.activity).toEqual([
      { kind: 'subagent-stop', id: 'x', type: 'unknown' },
    ]);
  });

  it('PreCompact records the trigger and keeps it for SessionStart, counting nothing yet', () => {
    const p = plan('PreCompact', {
      ...base('PreCompact'),
      trigger: 'manual',
      custom_instructions: 'keep the plan',
    });
    expect(p.observation).toEqual({ trigger: 'manual' });
    expect(p.events[0]).toMatchObject({
      type: 'hook.PreCompact',
      data: { trigger: 'manual', instructionsChars: 13 },
    });
    expect(p.activity).toBeUndefined();
  });

  it('SessionStart compact: protocol, note and open requests back; counted once; state left as it was', () => {
    const state = freshAgentState('w1', 'claude', NOW);
    const asked = openRequest('q-7', 'Should I drop the old table?\nDetails.');
    state.requests[asked.id] = asked;
    const p = plan(
      'SessionStart',
      { ...base('SessionStart'), source: 'compact', model: 'claude-x' },
      {
        agentState: state,
        // A Notification came between PreCompact and SessionStart: the
        // trigger is carried forward to it.
        previous: {
          event: 'Notification',
          ts: NOW.toISOString(),
          state: 'working',
          trigger: 'auto',
        },
      },
    );
    const context = (
      p.reply as { hookSpecificOutput: { additionalContext: string } }
    ).hookSpecificOutput.additionalContext;
    expect(context).toContain(PROTOCOL);
    expect(context).toContain('macs supervises you as agent "w1"');
    expect(context).toContain('Your context was just compacted');
    expect(context).toContain(
      '- q-7 (question, routed): Should I drop the old table?',
    );
    expect(p.observation).toEqual({ consecutiveBlocks: 0, trigger: '' });
    expect(p.events).toContainEqual({
      type: 'context.compacted',
      data: { trigger: 'auto', session: 'abc123' },
    });
    expect(p.activity).toEqual([{ kind: 'compacted', trigger: 'auto' }]);
  });

  it('SessionStart compact without a PreCompact before it: trigger unknown', () => {
    const p = plan('SessionStart', {
      ...base('SessionStart'),
      source: 'compact',
    });
    expect(p.activity).toEqual([{ kind: 'compacted', trigger: 'unknown' }]);
  });

  it('the controller, compacted, is told it is still the controller, with no protocol', () => {
    const p = plan(
      'SessionStart',
      { ...base('SessionStart'), source: 'compact' },
      { role: 'controller', workerPrompt: '' },
    );
    const context = JSON.stringify(p.reply);
    expect(context).toContain('still the controller');
    expect(context).not.toContain('CONTROLLER_REQUEST>>');
  });

  it('SessionStart startup: idle, a new conversation, nothing compacted', () => {
    const p = plan('SessionStart', {
      ...base('SessionStart'),
      source: 'startup',
    });
    expect(p.observation?.state).toBe('idle');
    expect(p.activity).toEqual([{ kind: 'session', source: 'startup' }]);
    expect(p.events.map((e) => e.type)).toEqual(['hook.SessionStart']);
    expect(JSON.stringify(p.reply)).not.toContain('compacted');
  });
});
