import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_RULES } from '../../src/typist/typist.js';
import { runBridgeRuntime } from '../../src/cli/bridge-runtime.js';
import type { CommandContext } from '../../src/cli/common.js';
import type { CliDeps } from '../../src/cli/options.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ensureHomeDirs } from '../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { createSilentLogger } from '../../src/log/logger.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';
import { waitFor } from '../helpers/wait-for.js';

describe('the bridge runtime: one agent or many, run until told to stop', () => {
  let paths: HomePaths;
  let tmux: FakeTmuxClient;
  let output: ReturnType<typeof createMemoryOutput>;
  let interrupt: (signal: 'SIGINT' | 'SIGTERM') => void;
  let deps: CliDeps;

  beforeEach(async () => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-rt-')));
    await ensureHomeDirs(paths);
    tmux = new FakeTmuxClient();
    output = createMemoryOutput();
    deps = {
      output,
      env: {},
      cwd: paths.home,
      runTmux: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
      readStdin: () => Promise.resolve(''),
      stdinIsTTY: true,
      interrupted: new Promise((resolve) => {
        interrupt = resolve;
      }),
    };
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  function run(options: { quiet?: boolean; single?: boolean; pane: string }) {
    const config = ConfigSchema.parse({ backend: 'file', backstopMs: 20 });
    const ctx: CommandContext = {
      paths,
      tmux,
      log: createSilentLogger(),
      loadConfig: () => Promise.resolve({ config } as never),
    };
    return runBridgeRuntime({
      opts: { ...(options.quiet ? { quiet: true } : {}) },
      deps,
      ctx,
      tmux,
      config,
      roster: {
        agents: [
          {
            name: 'w1',
            role: 'worker',
            profile: {
              preset: 'generic',
              rules: { ...DEFAULT_DELIVERY_RULES, submitDelayMs: 0 },
              classify: () => 'idle',
            },
          },
        ],
        resolvePane: () => Promise.resolve(options.pane),
        launched: () => Promise.resolve(undefined),
      },
      ...(options.single ? { single: true } : {}),
      logFields: { agent: 'w1' },
      banner: (bridge) => [
        `supervising ${bridge
          .snapshot()
          .map((s) => `${s.agent}:${s.status}`)
          .join(',')}`,
      ],
    });
  }

  it('says what runs, prints each event, and ends with 130 on Ctrl-C', async () => {
    tmux.addPane({ id: '%1' });
    const exit = run({ pane: '%1' });
    await waitFor(() => output.stderr.includes('  Ctrl-C stops'));
    expect(output.stderr[0]).toBe('supervising w1:running');
    expect(output.stdout.some((l) => l.includes('bridge.started'))).toBe(true);
    interrupt('SIGINT');
    expect(await exit).toBe(130);
    // Stopped: the agent's capture is closed and recorded.
    expect(output.stdout.some((l) => l.includes('bridge.stopped'))).toBe(true);
  });

  it('prints no events with --quiet, and ends with 0 on SIGTERM', async () => {
    tmux.addPane({ id: '%1' });
    const exit = run({ pane: '%1', quiet: true });
    await waitFor(() => output.stderr.includes('  Ctrl-C stops'));
    interrupt('SIGTERM');
    expect(await exit).toBe(0);
    expect(output.stdout).toEqual([]);
  });

  it('for one pane: fails at once when it cannot supervise it, and stops when it is gone', async () => {
    tmux.addPane({ id: '%1', agentTag: 'other' });
    await expect(run({ pane: '%1', single: true })).rejects.toThrow(
      /belongs to agent 'other'/,
    );

    tmux.addPane({ id: '%2' });
    tmux.addPane({ id: '%3' }); // the server runs on
    const exit = run({ pane: '%2', single: true });
    await waitFor(() => output.stderr.includes('  Ctrl-C stops'));
    tmux.panes.delete('%2');
    await expect(exit).rejects.toThrow(/pane %2 of agent 'w1' is gone/);
  });
});
