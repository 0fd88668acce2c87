import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS } from '../../src/hooks/claude.js';
import {
  agentSettingsPath,
  buildAgentHookSetup,
  buildClaudeHooks,
  buildCodexNotifyArgs,
  buildHookCommand,
  installClaudeHooks,
  localSettingsPath,
  macsHookAgent,
  mergeMacsHooks,
  prepareAgentHooks,
  removeMacsHooks,
  uninstallClaudeHooks,
} from '../../src/hooks/install.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

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

describe('installing into a project', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'macs-install-'));
    file = localSettingsPath(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('installing twice changes nothing the second time; uninstall leaves the user hooks', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const userText = `${JSON.stringify(USER_SETTINGS, null, 2)}\n`;
    writeFileSync(file, userText, { mode: 0o644 });
    const options = { ...cmd, askTimeoutSec: 120 };
    expect((await installClaudeHooks(file, options)).type).toBe('installed');
    const first = readFileSync(file, 'utf8');
    const firstStat = statSync(file);
    expect(firstStat.mode & 0o777).toBe(0o644);
    expect((await installClaudeHooks(file, options)).type).toBe('unchanged');
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(statSync(file).mtimeMs).toBe(firstStat.mtimeMs);
    expect(await uninstallClaudeHooks(file, 'worker-1')).toEqual({
      file,
      removed: CLAUDE_HOOK_EVENTS.length,
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(USER_SETTINGS);
    expect(await uninstallClaudeHooks(file, 'worker-1')).toEqual({
      file,
      removed: 0,
    });
  });

  it('creates the file when there is none, and refuses a second agent in one folder', async () => {
    const options = { ...cmd, askTimeoutSec: 60 };
    expect((await installClaudeHooks(file, options)).type).toBe('installed');
    expect(
      JSON.parse(readFileSync(file, 'utf8')).hooks.SessionStart,
    ).toHaveLength(1);
    expect(
      await installClaudeHooks(file, { ...options, agent: 'worker-2' }),
    ).toEqual({
      type: 'conflict',
      file,
      agents: ['worker-1'],
    });
  });

  it('never rewrites a file that is not valid JSON', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ "hooks": ');
    await expect(
      installClaudeHooks(file, { ...cmd, askTimeoutSec: 60 }),
    ).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{ "hooks": ');
  });
});

describe('per-agent settings for agents macs starts', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-setup-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('claude: a private settings file passed with --settings', async () => {
    const setup = buildAgentHookSetup({
      agent: 'worker-1',
      hooks: 'claude',
      paths,
      askTimeoutSec: 90,
      macsCommand: MACS,
    });
    const file = agentSettingsPath(paths, 'worker-1');
    expect(setup.args).toEqual(['--settings', file]);
    expect(setup.env).toEqual({
      MACS_AGENT: 'worker-1',
      MACS_HOME: paths.home,
    });
    const written = await prepareAgentHooks({
      agent: 'worker-1',
      hooks: 'claude',
      paths,
      askTimeoutSec: 90,
      macsCommand: MACS,
    });
    expect(written.args).toEqual(setup.args);
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    expect(settings.hooks.PreToolUse[0].hooks[0].timeout).toBe(120);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('codex: no command-line settings (a Codex home of its own, codex-home.test.ts); presets without hooks: nothing', () => {
    const base = { agent: 'w', paths, askTimeoutSec: 60, macsCommand: MACS };
    expect(buildAgentHookSetup({ ...base, hooks: 'codex' }).args).toEqual([]);
    expect(buildAgentHookSetup({ ...base, hooks: 'none' })).toMatchObject({
      args: [],
      files: [],
    });
  });
});
