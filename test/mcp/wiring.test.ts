import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createEventLog } from '../../src/events/log.js';
import { createSilentLogger } from '../../src/log/logger.js';
import {
  buildMcpServerCommand,
  buildMcpWiring,
  insecureAncestor,
  mcpWiringKind,
  prepareMcpWiring,
} from '../../src/session/mcp-wiring.js';
import { agentsFromFlags, planAgents } from '../../src/session/plan.js';
import { startSession } from '../../src/session/start-session.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

// Issue 13, part 2: a controller of a known preset is started with macs
// registered as its MCP server, in files under .macs/ (or, for Codex,
// `-c` overrides), never in the user's own config.
describe('MCP wiring of a controller', () => {
  let home: string;
  let paths: HomePaths;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-wiring-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const server = () =>
    buildMcpServerCommand({
      home,
      socket: 'macs-abc',
      macsCommand: ['/usr/bin/node', '/pkg/dist/main.js'],
    });

  it('runs `macs mcp` for the home and the session socket', () => {
    expect(server()).toEqual({
      command: '/usr/bin/node',
      args: [
        '/pkg/dist/main.js',
        'mcp',
        '--home',
        home,
        '--tmux-socket',
        'macs-abc',
      ],
    });
    expect(
      buildMcpServerCommand({
        home,
        socket: 's',
        config: '/c/macs.config.json',
        macsCommand: ['macs'],
      }),
    ).toEqual({
      command: 'macs',
      args: [
        'mcp',
        '--home',
        home,
        '--tmux-socket',
        's',
        '--config',
        '/c/macs.config.json',
      ],
    });
  });

  it('knows claude, codex and gemini; others are typed-text controllers', () => {
    expect(
      ['claude', 'codex', 'gemini', 'aider', 'generic', 'shell'].map(
        mcpWiringKind,
      ),
    ).toEqual(['claude', 'codex', 'gemini', undefined, undefined, undefined]);
  });

  it('Claude Code: --mcp-config with a stdio server in .macs/mcp/<agent>.claude.json, its tools allowed', () => {
    const wiring = buildMcpWiring({
      kind: 'claude',
      agent: 'controller',
      paths,
      server: server(),
    });
    const file = path.join(home, '.macs', 'mcp', 'controller.claude.json');
    // Allowed, or Claude Code asks a person before each call
    // (test/agents/controller-mcp.agents.test.ts).
    expect(wiring.args).toEqual([
      '--allowedTools',
      'mcp__macs',
      '--mcp-config',
      file,
    ]);
    expect(wiring.files.map((f) => f.path)).toEqual([file]);
    expect(JSON.parse(wiring.files[0]?.content ?? '')).toEqual({
      mcpServers: {
        macs: {
          type: 'stdio',
          command: '/usr/bin/node',
          args: server().args,
        },
      },
    });
  });

  it('Codex: -c mcp_servers.macs overrides whose values are TOML, nothing written', () => {
    const wiring = buildMcpWiring({
      kind: 'codex',
      agent: 'controller',
      paths,
      server: buildMcpServerCommand({
        home: '/h/with "quote" and \\ back',
        socket: 's',
        macsCommand: ['/usr/bin/node', '/pkg/dist/main.js'],
      }),
    });
    expect(wiring.files).toEqual([]);
    expect(wiring.env).toEqual({});
    expect(wiring.args).toEqual([
      '-c',
      'mcp_servers.macs.command="/usr/bin/node"',
      '-c',
      'mcp_servers.macs.args=["/pkg/dist/main.js","mcp","--home","/h/with \\"quote\\" and \\\\ back","--tmux-socket","s"]',
      '-c',
      'mcp_servers.macs.tool_timeout_sec=660',
    ]);
  });

  it('Gemini CLI: mcpServers in a settings file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH', () => {
    const wiring = buildMcpWiring({
      kind: 'gemini',
      agent: 'boss',
      paths,
      server: server(),
    });
    const file = path.join(home, '.macs', 'mcp', 'boss.gemini.json');
    expect(wiring.args).toEqual([]);
    expect(wiring.env).toEqual({ GEMINI_CLI_SYSTEM_SETTINGS_PATH: file });
    expect(JSON.parse(wiring.files[0]?.content ?? '')).toEqual({
      mcpServers: {
        macs: {
          command: '/usr/bin/node',
          args: server().args,
          timeout: 660_000,
        },
      },
    });
  });

  it('writes its files privately, and nothing for a preset without MCP', async () => {
    const wiring = await prepareMcpWiring({
      preset: 'claude',
      agent: 'controller',
      paths,
      socket: 's',
      macsCommand: ['macs'],
    });
    const file = wiring?.files[0]?.path ?? '';
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty(
      'mcpServers.macs.command',
      'macs',
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(
      await prepareMcpWiring({
        preset: 'aider',
        agent: 'controller',
        paths,
        socket: 's',
      }),
    ).toBeUndefined();
  });

  it('macs start gives the controller (only) its wiring, after its hook settings', async () => {
    const tmux = new FakeTmuxClient();
    const config = ConfigSchema.parse(
      agentsFromFlags({ controller: 'claude', workers: ['claude', 'codex'] }),
    );
    const { record } = await startSession({
      tmux,
      paths,
      config,
      agents: planAgents(config, home),
      socket: 'macs-test-fake',
      macsArgv: ['node', '/pkg/dist/main.js'],
      events: createEventLog(paths),
      log: createSilentLogger(),
      env: { PATH: '' },
    });
    const byName = Object.fromEntries(record.agents.map((a) => [a.name, a]));
    const mcpConfig = path.join(home, '.macs', 'mcp', 'controller.claude.json');
    expect(byName.controller?.mcp).toBe('claude');
    // `--controller claude` is a shell command: the flags are added to it, quoted.
    expect(byName.controller?.launch?.argv.at(-1)).toBe(
      `exec claude '--settings' '${path.join(home, '.macs', 'settings', 'controller.claude.json')}' '--allowedTools' 'mcp__macs' '--mcp-config' '${mcpConfig}'`,
    );
    expect(JSON.parse(readFileSync(mcpConfig, 'utf8'))).toEqual({
      mcpServers: {
        macs: {
          type: 'stdio',
          command: 'node',
          args: [
            '/pkg/dist/main.js',
            'mcp',
            '--home',
            home,
            '--tmux-socket',
            'macs-test-fake',
          ],
        },
      },
    });
    // Its hooks know it is the controller (no worker protocol at SessionStart).
    expect(byName.controller?.launch?.env.MACS_ROLE).toBe('controller');
    expect(byName['worker-1']?.launch?.env.MACS_ROLE).toBeUndefined();
    // Workers are not controllers: no MCP server of macs for them.
    expect(byName['worker-1']?.mcp).toBeUndefined();
    expect(byName['worker-1']?.launch?.argv).not.toContain('--mcp-config');
    expect(byName['worker-2']?.launch?.argv.join(' ')).not.toContain(
      'mcp_servers',
    );
  });

  it('a Codex controller gets the -c overrides and a Gemini one the settings env', async () => {
    for (const preset of ['codex', 'gemini'] as const) {
      const tmux = new FakeTmuxClient();
      const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-wiring-'));
      try {
        const p = resolveHomePaths(dir);
        const config = ConfigSchema.parse(
          agentsFromFlags({ controller: preset, workers: ['node a.js'] }),
        );
        const { record } = await startSession({
          tmux,
          paths: p,
          config,
          agents: planAgents(config, dir),
          socket: 'macs-test-fake',
          macsArgv: ['node', '/pkg/dist/main.js'],
          events: createEventLog(p),
          log: createSilentLogger(),
          env: { PATH: '' },
        });
        const controller = record.agents.find((a) => a.role === 'controller');
        expect(controller?.mcp).toBe(preset);
        if (preset === 'codex')
          expect(controller?.launch?.argv.at(-1)).toContain(
            `'-c' 'mcp_servers.macs.command="node"'`,
          );
        else
          expect(controller?.launch?.env).toMatchObject({
            GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(
              dir,
              '.macs',
              'mcp',
              'controller.gemini.json',
            ),
          });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('the controller learns its tools from a first message, unless requests are typed into it', async () => {
    for (const backend of ['file', 'interactive'] as const) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-wiring-'));
      try {
        const p = resolveHomePaths(dir);
        const config = ConfigSchema.parse({
          ...agentsFromFlags({ controller: 'claude', workers: ['node a.js'] }),
          backend,
        });
        const { record } = await startSession({
          tmux: new FakeTmuxClient(),
          paths: p,
          config,
          agents: planAgents(config, dir),
          socket: 'macs-test-fake',
          macsArgv: ['node', '/pkg/dist/main.js'],
          events: createEventLog(p),
          log: createSilentLogger(),
          env: { PATH: '' },
        });
        const controller = record.agents.find((a) => a.role === 'controller');
        expect(controller?.mcp).toBe('claude');
        if (backend === 'file')
          expect(controller?.prompt?.file).toMatch(/controller-mcp\.md$/);
        else expect(controller?.prompt).toBeUndefined();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('finds a folder others may write to above the settings (Gemini CLI skips such a file)', async () => {
    const open = path.join(home, 'open');
    const inner = path.join(open, 'inner');
    mkdirSync(inner, { recursive: true });
    chmodSync(open, 0o777);
    chmodSync(home, 0o700);
    expect(await insecureAncestor(inner)).toBe(open);
    expect(await insecureAncestor('/')).toBeUndefined();
  });
});
