// The Codex home macs gives a Codex agent it starts (issue 17, item 9):
// notify in a config.toml of its own instead of `-c notify=…`, which puts
// Codex 0.169 in embedded mode with a warning at every start.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  agentCodexHome,
  buildCodexConfig,
  userCodexHome,
} from '../../src/hooks/codex-home.js';
import {
  buildAgentHookSetup,
  prepareAgentHooks,
} from '../../src/hooks/install.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

const NOTIFY = ['/usr/bin/node', '/opt/macs/dist/main.js', 'hook', 'notify'];

describe('buildCodexConfig', () => {
  it('puts notify first and keeps the rest of the user’s config', () => {
    const source = [
      'model = "gpt-5-codex"',
      'model_provider = "mine"',
      '',
      '[model_providers.mine]',
      'base_url = "http://127.0.0.1:9/v1"',
      'notify = "a table key of the same name stays"',
    ].join('\n');
    const out = buildCodexConfig(source, NOTIFY);
    const lines = out.split('\n').filter((l) => !l.startsWith('#'));
    expect(lines[0]).toBe(
      'notify = ["/usr/bin/node", "/opt/macs/dist/main.js", "hook", "notify"]',
    );
    expect(out).toContain('model_provider = "mine"');
    expect(out).toContain('[model_providers.mine]');
    expect(out).toContain('notify = "a table key of the same name stays"');
  });

  it('replaces the user’s own top-level notify, also a multi-line array', () => {
    const source = [
      'notify = [',
      '  "notify-send",',
      '  "Codex [done]",',
      ']',
      'model = "o3"',
    ].join('\n');
    const out = buildCodexConfig(source, NOTIFY);
    const live = out.split('\n').filter((l) => !/^\s*#/.test(l));
    expect(live.filter((l) => /^\s*notify\s*=/.test(l))).toHaveLength(1);
    expect(live).not.toContain('  "notify-send",');
    expect(live).toContain('model = "o3"');
  });

  it('no config of the user: notify alone', () => {
    expect(
      buildCodexConfig(undefined, ['x'])
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    ).toEqual(['notify = ["x"]']);
  });

  it('the user’s Codex home: CODEX_HOME, else ~/.codex', () => {
    expect(userCodexHome({ CODEX_HOME: '/c' }, '/h')).toBe('/c');
    expect(userCodexHome({}, '/h')).toBe('/h/.codex');
  });
});

describe('prepareAgentHooks for Codex', () => {
  let paths: HomePaths;
  let source: string;
  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-cxh-')));
    source = path.join(paths.home, 'user-codex');
    mkdirSync(source);
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('no -c on the command line; CODEX_HOME of its own with the user’s config, sign-in linked', async () => {
    writeFileSync(path.join(source, 'config.toml'), 'model = "o3"\n');
    writeFileSync(path.join(source, 'auth.json'), '{}');
    const options = {
      agent: 'worker-1',
      hooks: 'codex' as const,
      paths,
      askTimeoutSec: 60,
      macsCommand: ['/usr/bin/node', '/opt/macs/dist/main.js'],
      codexSourceHome: source,
    };
    const setup = await prepareAgentHooks(options);
    const home = agentCodexHome(paths.runtime, 'worker-1');
    expect(setup.args).toEqual([]);
    expect(setup.env.CODEX_HOME).toBe(home);
    const config = readFileSync(path.join(home, 'config.toml'), 'utf8');
    expect(config).toMatch(
      /^notify = \["\/usr\/bin\/node", "\/opt\/macs\/dist\/main.js", "hook", "notify", "--agent", "worker-1", "--home", ".*"\]$/m,
    );
    expect(config).toContain('model = "o3"');
    expect(statSync(path.join(home, 'config.toml')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(home, 'auth.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(home, 'auth.json'))).toBe(
      path.join(source, 'auth.json'),
    );
    // Again (the next start): the same, the user's later change included.
    writeFileSync(path.join(source, 'config.toml'), 'model = "o4"\n');
    await prepareAgentHooks(options);
    expect(readFileSync(path.join(home, 'config.toml'), 'utf8')).toContain(
      'model = "o4"',
    );
    expect(buildAgentHookSetup(options).args).toEqual([]);
  });
});
