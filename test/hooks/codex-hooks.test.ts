// Codex CLI's own compaction and subagent hooks (issue 32; docs/hooks.md).
// macs installed only Codex's `notify`: a compacted Codex worker was not
// recorded, not counted, and got the protocol back from nobody (a Codex
// worker has no first message, so it had it from nowhere at all). Strategy:
// plan each event from the inputs Codex 0.169.0 sends (its hook schemas)
// and check events, activity, reply and that no observation is written;
// build the hooks file and trust entries and check the hash against the
// one the pinned Codex itself reports (`currentHash` of its hooks/list).
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import {
  buildCodexConfig,
  buildCodexHooks,
  codexEventLabel,
  codexHookHash,
} from '../../src/hooks/codex-home.js';
import {
  CODEX_HOOK_EVENTS,
  planCodexHook,
} from '../../src/hooks/codex-hooks.js';
import type { HookContext } from '../../src/hooks/types.js';

const PROTOCOL = '# Working under macs\nPrint <<CONTROLLER_REQUEST>> blocks.';

function ctx(overrides: Partial<HookContext> = {}): HookContext {
  return {
    agent: 'w1',
    now: new Date('2026-11-29T10:00:00.000Z'),
    agentState: undefined,
    previous: undefined,
    policy: defaultPolicy(),
    workerPrompt: PROTOCOL,
    unavailable: new Set(),
    paused: false,
    ...overrides,
  };
}

const base = (event: string) => ({
  session_id: '01a22671-e753-7890-979f-46706287b443',
  turn_id: 't1',
  transcript_path: null,
  cwd: '/work/repo',
  hook_event_name: event,
  model: 'gpt-5-codex',
});

const plan = (event: string, input: unknown, c: Partial<HookContext> = {}) =>
  planCodexHook(event, JSON.stringify(input), ctx(c));

const contextOf = (p: ReturnType<typeof plan>) =>
  (p.reply?.hookSpecificOutput as { additionalContext?: string } | undefined)
    ?.additionalContext ?? '';

describe('Codex lifecycle hooks', () => {
  it('PostCompact records context.compacted and counts it; PreCompact only records', () => {
    const pre = plan('PreCompact', {
      ...base('PreCompact'),
      trigger: 'manual',
    });
    expect(pre.events.map((e) => e.type)).toEqual(['hook.PreCompact']);
    expect(pre.activity ?? []).toEqual([]);
    expect(pre.observation).toBeUndefined();

    const post = plan('PostCompact', {
      ...base('PostCompact'),
      trigger: 'auto',
    });
    expect(post.events.map((e) => e.type)).toEqual([
      'hook.PostCompact',
      'context.compacted',
    ]);
    expect(post.events[1]?.data).toEqual({
      trigger: 'auto',
      session: '01a22671-e753-7890-979f-46706287b443',
    });
    expect(post.activity).toEqual([{ kind: 'compacted', trigger: 'auto' }]);
    expect(post.observation).toBeUndefined();
    expect(post.reply).toBeUndefined();
  });

  it('SessionStart gives the protocol; after a compaction with the note, counted once (at PostCompact)', () => {
    const startup = plan('SessionStart', {
      ...base('SessionStart'),
      source: 'startup',
    });
    expect(contextOf(startup)).toContain(PROTOCOL);
    expect(contextOf(startup)).toContain('macs supervises you as agent "w1"');
    expect(contextOf(startup)).not.toContain('compacted');
    expect(startup.activity).toEqual([{ kind: 'session', source: 'startup' }]);

    const compact = plan('SessionStart', {
      ...base('SessionStart'),
      source: 'compact',
    });
    expect(contextOf(compact)).toContain(PROTOCOL);
    expect(contextOf(compact)).toContain('Your context was just compacted');
    expect(compact.events.map((e) => e.type)).toEqual(['hook.SessionStart']);
    expect(compact.activity ?? []).toEqual([]);
    expect(compact.observation).toBeUndefined();

    const controller = plan(
      'SessionStart',
      { ...base('SessionStart'), source: 'compact' },
      { role: 'controller' },
    );
    expect(contextOf(controller)).not.toContain(PROTOCOL);
    expect(contextOf(controller)).toContain('still the controller');
  });

  it('SubagentStart and SubagentStop: subagent.stopped with its kind', () => {
    const input = {
      ...base('SubagentStop'),
      agent_id: 'a-1',
      agent_type: 'explorer',
      agent_transcript_path: null,
      last_assistant_message: 'done',
      permission_mode: 'default',
      stop_hook_active: false,
    };
    const start = plan('SubagentStart', {
      ...input,
      hook_event_name: 'SubagentStart',
    });
    expect(start.activity).toEqual([
      { kind: 'subagent-start', id: 'a-1', type: 'explorer' },
    ]);
    const stop = plan('SubagentStop', input);
    expect(stop.events.map((e) => e.type)).toEqual([
      'hook.SubagentStop',
      'subagent.stopped',
    ]);
    expect(stop.events[1]?.data).toMatchObject({
      subagent: 'a-1',
      kind: 'explorer',
    });
    expect(stop.reply).toBeUndefined();
  });

  it('bad input is an error event, nothing else', () => {
    const bad = planCodexHook('PostCompact', 'not json', ctx());
    expect(bad.events.map((e) => e.type)).toEqual(['error']);
    expect(bad.activity).toBeUndefined();
  });
});

describe('Codex hooks file and trust', () => {
  it("hashes a hook as the pinned Codex 0.169.0 does (its hooks/list's currentHash)", () => {
    // Read from `codex app-server`'s hooks/list for `[[hooks.PreCompact]]`
    // with one command hook `/bin/echo hi`, timeout 30.
    expect(
      codexHookHash('PreCompact', {
        type: 'command',
        command: '/bin/echo hi',
        timeout: 30,
      }),
    ).toBe(
      'sha256:92df2f4ca1c6b42bd1b1637518cb56c44f6288445457db673cfd7b7d3b67c0bb',
    );
    expect(codexEventLabel('SubagentStop')).toBe('subagent_stop');
    expect(codexEventLabel('PostCompact')).toBe('post_compact');
  });

  it('one hook per event, each trusted by its key in config.toml', () => {
    const { file, trust } = buildCodexHooks(
      CODEX_HOOK_EVENTS,
      (event) => `macs hook ${event}`,
      '/h/.macs/codex/w1/hooks.json',
      30,
    );
    expect(Object.keys(file.hooks)).toEqual([...CODEX_HOOK_EVENTS]);
    expect(file.hooks.PostCompact).toEqual([
      {
        hooks: [
          { type: 'command', command: 'macs hook PostCompact', timeout: 30 },
        ],
      },
    ]);
    expect(trust.map((t) => t.key)).toContain(
      '/h/.macs/codex/w1/hooks.json:post_compact:0:0',
    );
    const config = buildCodexConfig(
      'model = "o3"\n\n[analytics]\nenabled = false\n',
      ['macs'],
      trust,
    );
    expect(config).toContain('model = "o3"');
    expect(config).toContain(
      '[hooks.state."/h/.macs/codex/w1/hooks.json:post_compact:0:0"]\ntrusted_hash = "sha256:',
    );
    // The trust tables come after the user's own tables.
    expect(config.indexOf('[analytics]')).toBeLessThan(
      config.indexOf('[hooks.state.'),
    );
  });
});
