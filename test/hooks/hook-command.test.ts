import { describe, expect, it } from 'vitest';
import path from 'node:path';
import {
  buildClaudeHooks,
  buildCodexNotifyArgs,
  buildHookArgv,
  buildHookCommand,
  defaultMacsCommand,
  isMacsHookFor,
  macsHookAgent,
} from '../../src/hooks/hook-command.js';

const MACS = ['/usr/bin/node', '/opt/macs/dist/main.js'];
const cmd = { macsCommand: MACS, agent: 'worker-1', home: '/work/proj' };

describe('hook commands', () => {
  it('quotes every argument for the shell Claude Code runs hooks in', () => {
    expect(buildHookCommand('Stop', { ...cmd, home: "/work/it's here" })).toBe(
      `'/usr/bin/node' '/opt/macs/dist/main.js' 'hook' 'Stop' '--agent' 'worker-1' '--home' '/work/it'\\''s here'`,
    );
    expect(macsHookAgent(buildHookCommand('Stop', cmd))).toBe('worker-1');
    expect(macsHookAgent('/home/u/bin/audit-bash')).toBeUndefined();
  });

  it('has one entry per event, tool events matching every tool, PreToolUse long enough to ask', () => {
    const hooks = buildClaudeHooks({ ...cmd, askTimeoutSec: 120 });
    expect(Object.keys(hooks)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'Stop',
      'StopFailure',
      'Notification',
      'PermissionRequest',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'SubagentStart',
      'SubagentStop',
      'PreCompact',
    ]);
    // A tool call's end is seen for every tool (a dialog answered by a person).
    expect(hooks.PostToolUse?.[0]?.matcher).toBe('*');
    expect(hooks.PreToolUse).toEqual([
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command: buildHookCommand('PreToolUse', cmd),
            timeout: 150,
          },
        ],
      },
    ]);
    // A PermissionRequest may wait for the controller as long.
    expect(hooks.PermissionRequest?.[0]?.hooks[0]?.timeout).toBe(150);
    expect(hooks.Stop?.[0]?.matcher).toBeUndefined();
    expect(hooks.Stop?.[0]?.hooks[0]?.timeout).toBe(30);
  });

  it('gives Codex a notify program as a TOML array', () => {
    expect(buildCodexNotifyArgs(cmd)).toEqual([
      '-c',
      'notify=["/usr/bin/node", "/opt/macs/dist/main.js", "hook", "notify", "--agent", "worker-1", "--home", "/work/proj"]',
    ]);
  });
});

describe('the argv of a hook call', () => {
  it('is macs, hook, the event, the agent and the home', () => {
    expect(buildHookArgv('notify', cmd)).toEqual([
      '/usr/bin/node',
      '/opt/macs/dist/main.js',
      'hook',
      'notify',
      '--agent',
      'worker-1',
      '--home',
      '/work/proj',
    ]);
  });

  it('runs this node with an absolute main.js by default', () => {
    const [node, script, ...rest] = defaultMacsCommand();
    expect(node).toBe(process.execPath);
    expect(path.isAbsolute(script ?? '')).toBe(true);
    expect(script).toMatch(/main\.js$/);
    expect(rest).toEqual([]);
  });
});

describe("recognizing macs's own commands", () => {
  it('finds the agent in a quoted or a plain command', () => {
    expect(macsHookAgent('macs hook Stop --agent w1 --home /p')).toBe('w1');
    expect(macsHookAgent(buildHookCommand('PreToolUse', cmd))).toBe('worker-1');
    expect(macsHookAgent('echo hook')).toBeUndefined();
  });

  it('matches one agent exactly, its name taken literally', () => {
    const command = buildHookCommand('Stop', cmd);
    expect(isMacsHookFor(command, 'worker-1')).toBe(true);
    expect(isMacsHookFor(command, 'worker')).toBe(false);
    expect(isMacsHookFor(command, 'worker-10')).toBe(false);
    expect(isMacsHookFor(command, 'worker.1')).toBe(false);
    expect(isMacsHookFor(undefined, 'worker-1')).toBe(false);
    expect(
      isMacsHookFor(buildHookCommand('Stop', { ...cmd, agent: 'a.b' }), 'a.b'),
    ).toBe(true);
  });
});
