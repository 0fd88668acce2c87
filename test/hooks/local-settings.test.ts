import {
  existsSync,
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
import { CLAUDE_HOOK_EVENTS } from '../../src/hooks/claude-hook-protocol.js';
import {
  installClaudeHooks,
  localSettingsPath,
  uninstallClaudeHooks,
} from '../../src/hooks/local-settings.js';

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
      others: [],
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(USER_SETTINGS);
    expect(await uninstallClaudeHooks(file, 'worker-1')).toEqual({
      file,
      removed: 0,
      others: [],
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

describe('the settings file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'macs-local-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is Claude Code's per-user project settings", () => {
    expect(localSettingsPath('/work/proj')).toBe(
      '/work/proj/.claude/settings.local.json',
    );
  });

  it('a new file is private; uninstalling where there is none writes nothing', async () => {
    const file = localSettingsPath(dir);
    expect(await uninstallClaudeHooks(file, 'worker-1')).toEqual({
      file,
      removed: 0,
      others: [],
    });
    expect(existsSync(path.dirname(file))).toBe(false);
    await installClaudeHooks(file, { ...cmd, askTimeoutSec: 60 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never rewrites a file that holds something other than an object', async () => {
    const file = localSettingsPath(dir);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '[1, 2]\n');
    await expect(
      installClaudeHooks(file, { ...cmd, askTimeoutSec: 60 }),
    ).rejects.toThrow(/does not hold a JSON object/);
    await expect(uninstallClaudeHooks(file, 'worker-1')).rejects.toThrow(
      /does not hold a JSON object/,
    );
    expect(readFileSync(file, 'utf8')).toBe('[1, 2]\n');
  });

  it('an empty file counts as empty settings', async () => {
    const file = localSettingsPath(dir);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '\n');
    expect(
      (await installClaudeHooks(file, { ...cmd, askTimeoutSec: 60 })).type,
    ).toBe('installed');
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual([
      'hooks',
    ]);
  });
});
