import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { createEventLog } from '../../src/events/log.js';
import { createSilentLogger } from '../../src/log/logger.js';
import { agentsFromFlags, planAgents } from '../../src/session/plan.js';
import { sessionFilePath } from '../../src/session/record.js';
import { startSession } from '../../src/session/start-session.js';
import { headlessEnvOf } from '../../src/session/prepare-agents.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

describe('startSession (fake tmux)', () => {
  let home: string;
  let paths: HomePaths;
  let tmux: FakeTmuxClient;

  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-start-'));
    paths = resolveHomePaths(home);
    tmux = new FakeTmuxClient();
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  function start() {
    const config = ConfigSchema.parse(
      agentsFromFlags({
        controller: 'claude',
        workers: ['codex', 'node a.js'],
      }),
    );
    return startSession({
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
  }

  it('tags each pane and pipes it into its log before the program starts, then records the session', async () => {
    const { record, warnings } = await start();
    const at = (match: (args: string[]) => boolean) =>
      tmux.commands.findIndex(match);
    for (const agent of record.agents) {
      const tagged = at(
        (a) =>
          a[0] === 'set-option' &&
          a.includes(agent.pane) &&
          a.includes('@macs_agent'),
      );
      const piped = at((a) => a[0] === 'pipe-pane' && a.includes(agent.pane));
      const started = at(
        (a) => a[0] === 'respawn-pane' && a.includes(agent.pane),
      );
      expect(tagged).toBeGreaterThanOrEqual(0);
      expect(piped).toBeGreaterThan(tagged);
      expect(started).toBeGreaterThan(piped);
      const respawn = tmux.commands[started] ?? [];
      expect(respawn).toEqual(
        expect.arrayContaining([
          `MACS_AGENT=${agent.name}`,
          `MACS_HOME=${home}`,
          'MACS_TMUX_SOCKET=macs-test-fake',
        ]),
      );
    }
    expect(
      record.agents.map((a) => [a.name, a.role, a.preset, Boolean(a.prompt)]),
    ).toEqual([
      // A claude controller is wired to `macs mcp` and told its tools first.
      ['controller', 'controller', 'claude', true],
      ['worker-1', 'worker', 'codex', false],
      ['worker-2', 'worker', 'generic', true],
    ]);
    // The record names the bridge and status panes; the bridge window runs `bridge --all`.
    const written = JSON.parse(
      readFileSync(sessionFilePath(paths), 'utf8'),
    ) as typeof record;
    expect(written.panes).toEqual(record.panes);
    const bridge = tmux.commands.find(
      (a) => a[0] === 'respawn-pane' && a.includes(record.panes.bridge),
    );
    expect(bridge?.slice(-8)).toEqual([
      'node',
      '/pkg/dist/main.js',
      'bridge',
      '--all',
      '--home',
      home,
      '--tmux-socket',
      'macs-test-fake',
    ]);
    // remain-on-exit on every window; nothing is on PATH here, so each program is reported.
    expect(
      tmux.commands.filter((a) => a.includes('remain-on-exit')),
    ).toHaveLength(3);
    expect(warnings).toHaveLength(3);
  });

  it('warns when the environment makes a preset start headless (Gemini CLI and CI=true)', async () => {
    const config = ConfigSchema.parse(
      agentsFromFlags({ workers: ['gemini', 'bash'] }),
    );
    const agents = planAgents(config, home);
    const { warnings } = await startSession({
      tmux,
      paths,
      config,
      agents,
      socket: 'macs-test-fake',
      macsArgv: ['node', '/pkg/dist/main.js'],
      events: createEventLog(paths),
      log: createSilentLogger(),
      env: { PATH: '', CI: 'true', GITHUB_ACTIONS: 'false' },
    });
    const headless = warnings.filter((w) => w.includes('without its screen'));
    // Only the gemini worker, and only the variable that is "true".
    expect(headless).toHaveLength(1);
    expect(headless[0]).toMatch(/^worker-1: CI=true in the environment/);
    expect(headless[0]).not.toContain('GITHUB_ACTIONS');
    expect(headlessEnvOf(['CI'], { CI: 'false' })).toEqual([]);
    expect(headlessEnvOf(['CI'], { CI: 'TRUE' })).toEqual([]);
  });

  it('refuses a second session, and removes a half-created one when a step fails', async () => {
    await start();
    await expect(start()).rejects.toThrow(/already running/);

    const fresh = new FakeTmuxClient();
    tmux = fresh;
    rmSync(sessionFilePath(paths), { force: true });
    fresh.failOn = 'respawn-pane';
    await expect(start()).rejects.toThrow(/respawn-pane failed/);
    expect(fresh.commands.at(-1)).toEqual(['kill-server']);
    expect(fresh.panes.size).toBe(0);
    expect(existsSync(sessionFilePath(paths))).toBe(false);
  });
});
