import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import { PolicySchema } from '../../src/config/policy.js';
import { resolveApproval } from '../../src/hooks/claude-approval.js';
import { STOP_BLOCK_CAP } from '../../src/hooks/claude-stop.js';
import {
  formatSessionContext,
  notificationState,
  planClaudeHook,
} from '../../src/hooks/claude-hook-protocol.js';
import type { HookContext } from '../../src/hooks/types.js';
import { freshAgentState } from '../../src/state/store.js';
import type { AgentStateFile, RequestRecord } from '../../src/state/types.js';

// Inputs follow Claude Code's hooks reference: every event gets session_id,
// transcript_path, cwd, permission_mode and hook_event_name, plus its own fields.
const base = (event: string) => ({
  session_id: 'abc123',
  transcript_path: '/home/u/.claude/projects/p/abc123.jsonl',
  cwd: '/work/repo',
  permission_mode: 'default',
  hook_event_name: event,
});

const NOW = new Date('2026-11-21T10:00:00.000Z');

function answered(
  id: string,
  instructions: string,
  answeredAt: string,
  extra: Partial<RequestRecord> = {},
): RequestRecord {
  return {
    id,
    agent: 'w1',
    workerId: id.replace(/^w1-/, ''),
    type: 'question',
    priority: 'normal',
    attributes: {},
    bodyHash: 'x'.repeat(40),
    body: 'may I?',
    stage: 'answered',
    detectedAt: '2026-11-21T09:00:00.000Z',
    answeredAt,
    response: {
      instructions,
      notes: 'for people only',
      source: 'outbox',
      receivedAt: answeredAt,
      raw: `WORKER INSTRUCTIONS:\n${instructions}\n\nNOTES:\nfor people only`,
    },
    ...extra,
  };
}

function stateWith(...records: RequestRecord[]): AgentStateFile {
  const s = freshAgentState('w1', 'claude', NOW);
  for (const r of records) s.requests[r.id] = r;
  return s;
}

function ctx(overrides: Partial<HookContext> = {}): HookContext {
  return {
    agent: 'w1',
    now: NOW,
    agentState: undefined,
    previous: undefined,
    policy: defaultPolicy(),
    workerPrompt: '# Working under macs\nPrint <<CONTROLLER_REQUEST>> blocks.',
    unavailable: new Set(),
    paused: false,
    ...overrides,
  };
}

const plan = (event: string, input: unknown, c: Partial<HookContext> = {}) =>
  planClaudeHook(
    event,
    typeof input === 'string' ? input : JSON.stringify(input),
    ctx(c),
  );

describe('malformed or empty stdin never answers', () => {
  it.each([
    'SessionStart',
    'UserPromptSubmit',
    'Stop',
    'Notification',
    'PermissionRequest',
    'PreToolUse',
  ])('%s: no reply, no state, one error event', (event) => {
    for (const raw of ['', 'not json', '{"a":', '42']) {
      const p = plan(event, raw);
      expect(p.reply).toBeUndefined();
      expect(p.observation).toBeUndefined();
      expect(p.claim).toBeUndefined();
      expect(p.ask).toBeUndefined();
      expect(p.events).toEqual([
        {
          type: 'error',
          data: { where: 'hook', event, message: expect.any(String) },
        },
      ]);
    }
  });
});

describe('SessionStart', () => {
  it('adds the worker protocol as context and marks the agent idle', () => {
    const p = plan('SessionStart', {
      ...base('SessionStart'),
      source: 'startup',
      model: 'claude-sonnet-4-5',
    });
    expect(p.reply).toEqual({
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: expect.stringContaining('<<CONTROLLER_REQUEST>>'),
      },
    });
    expect(p.observation).toEqual({
      state: 'idle',
      consecutiveBlocks: 0,
      trigger: '',
    });
    expect(p.events).toEqual([
      {
        type: 'hook.SessionStart',
        data: {
          session: 'abc123',
          source: 'startup',
          model: 'claude-sonnet-4-5',
        },
      },
    ]);
  });

  it.each(['resume', 'clear', 'compact'])(
    'adds the context again after %s (the conversation lost it)',
    (source) => {
      const p = plan('SessionStart', { ...base('SessionStart'), source });
      expect(JSON.stringify(p.reply)).toContain('additionalContext');
    },
  );

  it('gives the controller its role, not the worker protocol', () => {
    const p = plan('SessionStart', base('SessionStart'), {
      role: 'controller',
    });
    const context = JSON.stringify(p.reply);
    expect(context).toContain('you are their controller');
    expect(context).not.toContain('CONTROLLER_REQUEST');
  });

  it('names the agent even without a prompt file', () => {
    expect(formatSessionContext('w1', '')).toBe(
      'macs supervises you as agent "w1".',
    );
  });
});

describe('UserPromptSubmit', () => {
  it('marks the agent working, prints nothing (stdout would become context)', () => {
    const p = plan('UserPromptSubmit', {
      ...base('UserPromptSubmit'),
      prompt: 'Migrate after the API change.',
    });
    expect(p.reply).toBeUndefined();
    expect(p.observation).toEqual({ state: 'working', consecutiveBlocks: 0 });
    expect(p.events).toEqual([
      { type: 'hook.UserPromptSubmit', data: { session: 'abc123', chars: 29 } },
    ]);
  });
});

describe('Stop', () => {
  const stop = (active = false) => ({
    ...base('Stop'),
    stop_hook_active: active,
    last_assistant_message: 'Done.',
  });

  it('with nothing queued: idle, no reply', () => {
    const p = plan('Stop', stop(), { agentState: stateWith() });
    expect(p.reply).toBeUndefined();
    expect(p.claim).toBeUndefined();
    expect(p.observation).toEqual({ state: 'idle', consecutiveBlocks: 0 });
  });

  it('hands the oldest queued answer over as a block decision, instructions only', () => {
    const state = stateWith(
      answered('w1-q2', 'second', '2026-11-21T09:30:00.000Z'),
      answered(
        'w1-q1',
        'Migrate after the API change.',
        '2026-11-21T09:20:00.000Z',
      ),
    );
    const p = plan('Stop', stop(), { agentState: state });
    expect(p.claim).toBe('w1-q1');
    // Continued through additionalContext, not a block: Claude Code shows a
    // block as "Stop hook error: …" (issue 17, item 10).
    expect(p.reply).toEqual({
      hookSpecificOutput: {
        hookEventName: 'Stop',
        additionalContext:
          'The controller answered your request q1:\n\nMigrate after the API change.',
      },
    });
    expect(JSON.stringify(p.reply)).not.toContain('decision');
    expect(JSON.stringify(p.reply)).not.toContain('for people only');
    expect(p.observation).toEqual({
      state: 'working',
      delivered: 'w1-q1',
      consecutiveBlocks: 1,
    });
    expect(p.events[0]).toMatchObject({
      type: 'hook.Stop',
      requestId: 'w1-q1',
      data: { delivered: true, stopHookActive: false },
    });
  });

  it('skips answers claimed by someone else, requests not yet answered, approvals and empty ones', () => {
    const state = stateWith(
      answered('w1-a', 'taken', '2026-11-21T09:00:00.000Z'),
      answered('w1-b', 'routed', '2026-11-21T09:01:00.000Z', {
        stage: 'routed',
      }),
      answered('w1-c', 'allow', '2026-11-21T09:02:00.000Z', { origin: 'hook' }),
      // A screen dialog's decision is keys on the dialog, never text.
      answered('w1-s', 'allow', '2026-11-21T09:02:30.000Z', {
        origin: 'screen',
      }),
      answered('w1-d', '\u001b[0m \n', '2026-11-21T09:03:00.000Z'),
      answered('w1-e', 'this one', '2026-11-21T09:04:00.000Z'),
    );
    const p = plan('Stop', stop(), {
      agentState: state,
      unavailable: new Set(['w1-a']),
    });
    expect(p.claim).toBe('w1-e');
  });

  it('does not hand answers over while delivery is paused', () => {
    const state = stateWith(
      answered('w1-q1', 'go', '2026-11-21T09:20:00.000Z'),
    );
    expect(
      plan('Stop', stop(), { agentState: state, paused: true }).claim,
    ).toBeUndefined();
  });

  it('guards against endless blocking: after the cap it lets the agent stop', () => {
    const state = stateWith(
      answered('w1-q1', 'go', '2026-11-21T09:20:00.000Z'),
    );
    const previous = {
      event: 'Stop',
      ts: NOW.toISOString(),
      consecutiveBlocks: STOP_BLOCK_CAP,
    };
    const capped = plan('Stop', stop(true), { agentState: state, previous });
    expect(capped.reply).toBeUndefined();
    expect(capped.observation).toEqual({ state: 'idle', consecutiveBlocks: 0 });
    expect(capped.events[0]).toMatchObject({ data: { capped: true } });
    // Below the cap, or when Claude Code says no Stop hook is active, it delivers.
    expect(
      plan('Stop', stop(true), {
        agentState: state,
        previous: { ...previous, consecutiveBlocks: STOP_BLOCK_CAP - 1 },
      }).observation,
    ).toMatchObject({ consecutiveBlocks: STOP_BLOCK_CAP });
    expect(
      plan('Stop', stop(false), { agentState: state, previous }).claim,
    ).toBe('w1-q1');
  });
});

describe('Notification', () => {
  it.each([
    [
      'permission_prompt',
      'Claude needs your permission to use Bash',
      'approval',
    ],
    ['idle_prompt', 'Claude is waiting for your input', 'idle'],
    ['elicitation_dialog', 'MCP server asks a question', 'approval'],
    ['auth_success', 'Logged in', undefined],
    [undefined, 'Claude needs your permission to use Bash', 'approval'],
    [undefined, 'Claude is waiting for your input', 'idle'],
    [undefined, 'Task completed', undefined],
  ])('%s %j → %s', (type, message, state) => {
    const p = plan('Notification', {
      ...base('Notification'),
      message,
      ...(type ? { notification_type: type } : {}),
    });
    expect(p.reply).toBeUndefined();
    expect(p.observation?.state).toBe(state);
    expect(p.events[0]).toMatchObject({
      type: 'hook.Notification',
      data: { message },
    });
    expect(notificationState(type, message)).toBe(state);
  });
});

describe('StopFailure (a turn that ended on an API error)', () => {
  it('marks the agent error and keeps the error and its text', () => {
    // Claude Code 2.1.197 runs StopFailure, not Stop, after an API error.
    const p = plan('StopFailure', {
      ...base('StopFailure'),
      error: 'server_error',
      error_details: '500 Internal server error',
      last_assistant_message: 'API Error: 500 Internal server error',
    });
    expect(p.reply).toBeUndefined();
    expect(p.claim).toBeUndefined();
    expect(p.observation).toEqual({ state: 'error', consecutiveBlocks: 0 });
    expect(p.events[0]).toMatchObject({
      type: 'hook.StopFailure',
      data: { error: 'server_error', message: '500 Internal server error' },
    });
  });
});

describe('StopFailure without error_details', () => {
  it('keeps the message Claude Code printed (last_assistant_message)', () => {
    // What 2.1.197 sent for a 500 and for a refused connection.
    const p = plan('StopFailure', {
      ...base('StopFailure'),
      error: 'server_error',
      last_assistant_message:
        'API Error: Unable to connect to API (ConnectionRefused)',
    });
    expect(p.observation?.state).toBe('error');
    expect(p.events[0]?.data).toMatchObject({
      error: 'server_error',
      message: 'API Error: Unable to connect to API (ConnectionRefused)',
    });
  });
});

describe('PostToolUse / PostToolUseFailure', () => {
  it.each(['PostToolUse', 'PostToolUseFailure'])(
    '%s: the turn goes on, the agent is working (also after a person answered a dialog)',
    (event) => {
      const p = plan(event, {
        ...base(event),
        tool_name: 'Bash',
        tool_input: { command: 'touch x' },
        tool_response: { stdout: '', stderr: '' },
        tool_use_id: 'toolu_1',
      });
      expect(p.reply).toBeUndefined();
      expect(p.observation).toEqual({ state: 'working' });
      expect(p.events[0]).toMatchObject({
        type: `hook.${event}`,
        data: { tool: 'Bash' },
      });
    },
  );
});

describe('PermissionRequest', () => {
  const permission = (input: Record<string, unknown>) => ({
    ...base('PermissionRequest'),
    tool_name: 'Bash',
    tool_input: input,
    permission_suggestions: [],
  });

  it('becomes an approval to ask, carrying the tool, the command and a fingerprint of the whole input', () => {
    const p = plan(
      'PermissionRequest',
      permission({ command: 'npm publish', description: 'Publish' }),
    );
    // Nothing is replied until the decision comes (the runner waits).
    expect(p.reply).toBeUndefined();
    expect(p.observation).toEqual({ state: 'approval' });
    expect(p.ask).toMatchObject({
      event: 'PermissionRequest',
      tool: 'Bash',
      subject: 'npm publish',
      default: 'dialog',
      sessionId: 'abc123',
    });
    expect(p.ask?.id).toMatch(/^w1-approval-[0-9a-f]{12}$/);
    expect(p.ask?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(p.ask?.body).toContain('Command: npm publish');
    expect(p.ask?.body).toContain('Why: Publish');
    expect(p.ask?.body).toContain('dialog stays open for a person');
  });

  it('gives the same input the same fingerprint whatever the key order, and another input another', () => {
    const a = plan(
      'PermissionRequest',
      permission({ command: 'npm publish', description: 'x' }),
    ).ask;
    const b = plan(
      'PermissionRequest',
      permission({ description: 'x', command: 'npm publish' }),
    ).ask;
    const c = plan(
      'PermissionRequest',
      permission({ command: 'npm publish --tag next', description: 'x' }),
    ).ask;
    expect(a?.fingerprint).toBe(b?.fingerprint);
    expect(c?.fingerprint).not.toBe(a?.fingerprint);
  });

  it('answers through the documented decision: allow, deny with a message, or nothing (the dialog stays)', () => {
    const ask = plan('PermissionRequest', permission({ command: 'ls' })).ask;
    if (!ask) throw new Error('no ask');
    expect(
      resolveApproval(
        ask,
        { decision: 'allow', by: 'controller', reason: 'allow: fine' },
        10,
      ).reply,
    ).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow' },
      },
    });
    expect(
      resolveApproval(
        ask,
        { decision: 'deny', by: 'controller', reason: 'deny: not now' },
        10,
      ).reply,
    ).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'deny',
          message: 'The controller refused this: deny: not now',
        },
      },
    });
    const left = resolveApproval(
      ask,
      { decision: 'dialog', by: 'timeout', reason: 'no decision' },
      10,
    );
    expect(left.reply).toBeUndefined();
    expect(left.observation).toBeUndefined();
    expect(left.events[0]).toMatchObject({
      type: 'hook.PermissionRequest',
      requestId: ask.id,
      data: { decision: 'dialog', by: 'timeout', fingerprint: ask.fingerprint },
    });
  });

  it('a tool with no command or path is described by its input', () => {
    const p = plan('PermissionRequest', {
      ...base('PermissionRequest'),
      tool_name: 'mcp__db__drop',
      tool_input: { table: 'users' },
    });
    expect(p.ask?.subject).toBe('{"table":"users"}');
    expect(p.ask?.body).toContain('Target: {"table":"users"}');
  });
});

describe('PreToolUse', () => {
  const call = (tool: string, input: Record<string, unknown>) => ({
    ...base('PreToolUse'),
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_01ABC',
  });

  it('denies rm -rf / with a reason the agent sees', () => {
    const p = plan('PreToolUse', call('Bash', { command: 'rm -rf /' }));
    expect(p.reply).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('rm-everything'),
      },
    });
    expect(p.events[0]).toMatchObject({
      type: 'hook.PreToolUse',
      data: { tool: 'Bash', decision: 'deny', rule: 'rm-everything' },
    });
  });

  it('denies reading a secrets file with any tool', () => {
    for (const [tool, input] of [
      ['Read', { file_path: '/work/repo/.env' }],
      ['Bash', { command: 'cat ~/.ssh/id_rsa' }],
      ['Grep', { pattern: 'KEY', path: '/work/repo/.env.local' }],
    ] as const) {
      const p = plan('PreToolUse', call(tool, input));
      expect(JSON.stringify(p.reply), tool).toContain('"deny"');
    }
  });

  it('passes ordinary calls without a reply (Claude Code asks as usual)', () => {
    for (const [tool, input] of [
      ['Bash', { command: 'npm test' }],
      [
        'Write',
        {
          file_path: '/work/repo/README.md',
          content: 'copy .env.example to .env',
        },
      ],
      ['Read', { file_path: '/work/repo/.env.example' }],
    ] as const) {
      const p = plan('PreToolUse', call(tool, input));
      expect(p.reply, tool).toBeUndefined();
      expect(p.observation).toEqual({ state: 'working' });
      expect(p.events[0]).toMatchObject({ data: { decision: 'pass' } });
    }
  });

  it('turns an ask rule into an approval to wait for', () => {
    const policy = PolicySchema.parse({
      ask: ['\\bgit\\s+push\\b'],
      askTimeoutSec: 30,
    });
    const p = plan(
      'PreToolUse',
      call('Bash', { command: 'git push origin main' }),
      {
        policy,
      },
    );
    expect(p.reply).toBeUndefined();
    expect(p.observation).toEqual({ state: 'approval' });
    expect(p.ask).toMatchObject({
      event: 'PreToolUse',
      tool: 'Bash',
      subject: 'git push origin main',
      rule: 'ask-0',
      timeoutSec: 30,
      default: 'deny',
      toolUseId: 'toolu_01ABC',
    });
    expect(p.ask?.id).toMatch(/^w1-approval-[0-9a-f]{12}$/);
    expect(p.ask?.body).toContain('Command: git push origin main');
    expect(p.ask?.body).toContain('"allow" or "deny"');
  });

  it('denies before it asks', () => {
    const policy = PolicySchema.parse({ ask: ['.*'] });
    const p = plan(
      'PreToolUse',
      call('Bash', { command: 'git push --force' }),
      {
        policy,
      },
    );
    expect(p.ask).toBeUndefined();
    expect(JSON.stringify(p.reply)).toContain('force-push');
  });

  it('resolves an approval into allow or deny', () => {
    const policy = PolicySchema.parse({ ask: ['push'] });
    const ask = plan('PreToolUse', call('Bash', { command: 'git push' }), {
      policy,
    }).ask;
    if (!ask) throw new Error('expected an ask');
    const allow = resolveApproval(
      ask,
      { decision: 'allow', by: 'controller', reason: 'allow: CI is green' },
      1200,
    );
    expect(allow.reply).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason:
          'The controller approved this: allow: CI is green',
      },
    });
    expect(allow.events[0]).toMatchObject({
      type: 'hook.PreToolUse',
      requestId: ask.id,
      data: { decision: 'allow', by: 'controller', waitedMs: 1200 },
    });
    const timeout = resolveApproval(
      ask,
      { decision: 'deny', by: 'timeout', reason: '' },
      120_000,
    );
    expect(JSON.stringify(timeout.reply)).toContain(
      'no decision from the controller',
    );
  });
});

describe('other events', () => {
  it('records events macs has no handler for and leaves them alone', () => {
    const p = plan('PostCompact', {
      ...base('PostCompact'),
      trigger: 'manual',
      compact_summary: 'a summary',
    });
    expect(p).toEqual({
      events: [{ type: 'hook.PostCompact', data: { session: 'abc123' } }],
    });
  });
});

describe('the transcript path (usage, docs/usage.md)', () => {
  it('is kept from a known event when absolute and a .jsonl file', () => {
    expect(plan('Stop', base('Stop')).transcriptPath).toBe(
      '/home/u/.claude/projects/p/abc123.jsonl',
    );
  });

  it('is refused when relative or not a .jsonl file', () => {
    for (const file of ['rel/x.jsonl', '/etc/passwd', 42])
      expect(
        plan('Stop', { ...base('Stop'), transcript_path: file }).transcriptPath,
      ).toBeUndefined();
  });
});
