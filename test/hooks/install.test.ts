import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  agentSettingsPath,
  buildAgentHookSetup,
  prepareAgentHooks,
} from '../../src/hooks/install.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

const MACS = ['/usr/bin/node', '/opt/macs/dist/main.js'];

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
