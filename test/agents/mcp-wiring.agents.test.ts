import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildMcpWiring,
  buildMcpServerCommand,
  prepareMcpWiring,
} from '../../src/session/mcp-wiring.js';
import { resolveHomePaths } from '../../src/home/paths.js';
import { MACS_BIN } from '../helpers/macs.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { agent } from './pins.js';

// Issue 13, part 2: the pinned agents read the MCP wiring `macs start`
// gives a controller. Only their `mcp list` commands run: no model is
// called, and each has its own config folder in a temp dir.
describe('the real agents read the macs MCP wiring', () => {
  let home: string;
  let cleanup: () => void;
  beforeEach(() => ({ home, cleanup } = makeTempHome('macs-mcp-agents-')));
  afterEach(() => cleanup());

  const quietEnv = (extra: Record<string, string>) => ({
    PATH: process.env.PATH ?? '',
    HOME: path.join(home, 'user'),
    NO_COLOR: '1',
    ...extra,
  });

  it('Codex takes the -c mcp_servers.macs overrides as a stdio server', () => {
    const codexHome = path.join(home, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    const server = buildMcpServerCommand({
      home,
      socket: 'macs-x',
      macsCommand: [process.execPath, MACS_BIN],
    });
    const { args } = buildMcpWiring({
      kind: 'codex',
      agent: 'controller',
      paths: resolveHomePaths(home),
      server,
    });
    const out = execFileSync(
      agent('codex').bin,
      ['mcp', 'list', '--json', ...args],
      {
        encoding: 'utf8',
        env: quietEnv({ CODEX_HOME: codexHome }),
        timeout: 60_000,
      },
    );
    const listed = JSON.parse(out) as {
      name: string;
      transport: { type: string; command: string; args: string[] };
      tool_timeout_sec: number;
    }[];
    expect(listed).toEqual([
      expect.objectContaining({
        name: 'macs',
        transport: expect.objectContaining({
          type: 'stdio',
          command: server.command,
          args: server.args,
        }) as unknown,
        tool_timeout_sec: 660,
      }),
    ]);
  });

  it('Gemini CLI skips the settings file under a folder others may write to, and macs start says so', async () => {
    const user = path.join(home, 'user', '.gemini');
    mkdirSync(user, { recursive: true });
    writeFileSync(
      path.join(user, 'settings.json'),
      JSON.stringify({
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    const wiring = await prepareMcpWiring({
      preset: 'gemini',
      agent: 'controller',
      paths: resolveHomePaths(home),
      socket: 'macs-x',
      macsCommand: [process.execPath, MACS_BIN],
    });
    // The temp home is under the world-writable temp folder.
    expect(wiring?.warning).toMatch(/Gemini CLI ignores its settings file/);
    const run = spawnSync(agent('gemini').bin, ['mcp', 'list'], {
      encoding: 'utf8',
      cwd: home,
      env: quietEnv({
        ...wiring?.env,
        GEMINI_API_KEY: 'dummy-key-for-tests',
      }),
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = `${run.stdout}${run.stderr}`;
    expect(out).toMatch(/Skipping system settings file .* is insecure/);
    expect(out).toContain('No MCP servers configured');
  });
});
