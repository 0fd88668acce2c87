import { describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS } from '../../src/hooks/claude-hook-protocol.js';
import { buildClaudeHooks } from '../../src/hooks/hook-command.js';
import {
  isRecord,
  macsEntries,
  mergeMacsHooks,
  otherMacsAgents,
  removeMacsHooks,
} from '../../src/hooks/settings-merge.js';

const MACS = ['/usr/bin/node', '/opt/macs/dist/main.js'];
const cmd = { macsCommand: MACS, agent: 'worker-1', home: '/work/proj' };

// A user's own settings, as Claude Code's docs show them.
const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [
          { type: 'command', command: '/home/u/bin/audit-bash', timeout: 5 },
        ],
      },
    ],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
};

describe('merging into settings', () => {
  const ours = buildClaudeHooks({ ...cmd, askTimeoutSec: 120 });

  it("adds after the user's own hooks and keeps every other key", () => {
    const merged = mergeMacsHooks(
      structuredClone(USER_SETTINGS),
      'worker-1',
      ours,
    );
    expect(merged.model).toBe('opus');
    expect(merged.permissions).toEqual(USER_SETTINGS.permissions);
    const hooks = merged.hooks as Record<string, unknown[]>;
    expect(hooks.PreToolUse?.[0]).toEqual(USER_SETTINGS.hooks.PreToolUse[0]);
    expect(hooks.PreToolUse).toHaveLength(2);
    expect(hooks.Stop?.[0]).toEqual(USER_SETTINGS.hooks.Stop[0]);
  });

  it('is idempotent and removable without touching the user', () => {
    const once = mergeMacsHooks(
      structuredClone(USER_SETTINGS),
      'worker-1',
      ours,
    );
    const twice = mergeMacsHooks(structuredClone(once), 'worker-1', ours);
    expect(twice).toEqual(once);
    const removed = removeMacsHooks(twice, 'worker-1');
    expect(removed.removed).toBe(CLAUDE_HOOK_EVENTS.length);
    expect(removed.settings).toEqual(USER_SETTINGS);
    // Only that agent's entries go.
    expect(removeMacsHooks(twice, 'worker-2').removed).toBe(0);
  });

  it('leaves no empty hooks section behind when there was none', () => {
    const merged = mergeMacsHooks({ model: 'opus' }, 'worker-1', ours);
    expect(removeMacsHooks(merged, 'worker-1').settings).toEqual({
      model: 'opus',
    });
  });
});

describe('reading macs entries', () => {
  const ours = buildClaudeHooks({ ...cmd, askTimeoutSec: 120 });

  it('names the other agents that have macs hooks in the file', () => {
    const both = mergeMacsHooks(
      mergeMacsHooks(structuredClone(USER_SETTINGS), 'worker-1', ours),
      'worker-2',
      buildClaudeHooks({ ...cmd, agent: 'worker-2', askTimeoutSec: 120 }),
    );
    expect(otherMacsAgents(both, 'worker-1')).toEqual(['worker-2']);
    expect(otherMacsAgents(both, 'worker-3')).toEqual(['worker-1', 'worker-2']);
    expect(otherMacsAgents(USER_SETTINGS, 'worker-1')).toEqual([]);
    expect(otherMacsAgents({ hooks: 'odd' }, 'worker-1')).toEqual([]);
  });

  it("lists an agent's entries by event with their command, timeout and matcher", () => {
    const merged = mergeMacsHooks(
      structuredClone(USER_SETTINGS),
      'worker-1',
      ours,
    );
    const entries = macsEntries(merged, 'worker-1');
    expect(entries).toHaveLength(CLAUDE_HOOK_EVENTS.length);
    expect(entries.map((e) => e[0])).toEqual(
      [...CLAUDE_HOOK_EVENTS].sort((a, b) => a.localeCompare(b)),
    );
    expect(entries.find((e) => e[0] === 'PreToolUse')).toEqual([
      'PreToolUse',
      ours.PreToolUse?.[0]?.hooks[0]?.command,
      150,
      '*',
    ]);
    expect(macsEntries(USER_SETTINGS, 'worker-1')).toEqual([]);
  });

  it('keeps what it does not understand when it removes', () => {
    const odd = {
      hooks: {
        Stop: 'not a list',
        PreToolUse: [42, { matcher: 'x' }],
        Notification: [],
      },
    };
    expect(removeMacsHooks(odd, 'worker-1')).toEqual({
      settings: odd,
      removed: 0,
    });
  });

  it('isRecord takes plain objects only', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
    expect(isRecord('x')).toBe(false);
  });
});
