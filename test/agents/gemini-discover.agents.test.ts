// Discovery by program finds the real, npm-installed Gemini CLI in an
// untagged pane although tmux names the pane's command `node`: `macs bridge
// --agent <name> --preset gemini` without a pane finds it through the pane's
// process tree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findEvents,
  startBridge,
  type BridgeProcess,
} from '../helpers/macs.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { isAlive } from '../helpers/session.js';
import { waitFor } from '../helpers/wait-for.js';
import { processTree, readProcessTable } from '../../src/tmux/processes.js';
import { geminiEnv } from './gemini-env.js';
import { agent } from './pins.js';
import {
  startGeminiApiServer,
  type GeminiApiServer,
} from './servers/gemini-api.js';
import path from 'node:path';

const GEMINI = agent('gemini');

describe(`discovery of Gemini CLI ${GEMINI.version} by its program`, () => {
  let home: string;
  let cleanup: () => void;
  let tmux: TestTmuxServer;
  let server: GeminiApiServer;
  let bridge: BridgeProcess | undefined;

  beforeAll(async () => {
    ({ home, cleanup } = makeTempHome('macs-gemini-discover-'));
    server = await startGeminiApiServer();
    tmux = await startTmuxServer();
  });

  afterAll(async () => {
    bridge?.child.kill('SIGKILL');
    await bridge?.exited;
    // Gemini (and its relaunched child) end before the home goes: a CLI
    // ended by the server's hangup still writes its session files.
    const panePids = (await tmux.tmux('list-panes', '-a', '-F', '#{pane_pid}'))
      .split('\n')
      .map(Number)
      .filter((pid) => pid > 1);
    const table = await readProcessTable();
    const pids = panePids.flatMap((pid) =>
      processTree(table, pid).map((p) => p.pid),
    );
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      timeout: 20_000,
      message: 'gemini ended',
    });
    await tmux?.kill();
    await server?.close();
    cleanup();
  });

  it('finds the untagged pane running gemini though its pane command is node', async () => {
    const pane = await tmux.spawnPane([GEMINI.bin], {
      cwd: home,
      env: geminiEnv(path.join(home, 'gemini-home'), server.url),
    });
    // Gemini is up when its composer shows.
    await waitFor(
      async () => (await tmux.capture(pane)).includes('Type your message'),
      { timeout: 120_000, interval: 250, message: 'gemini started' },
    );
    const command = (
      await tmux.tmux('display', '-p', '-t', pane, '#{pane_current_command}')
    ).trim();
    expect(command).not.toBe('gemini'); // `node`: why the tree is needed

    bridge = startBridge(['--agent', 'gem-1', '--preset', 'gemini'], {
      home,
      socket: tmux.socket,
    });
    // The bridge finds the pane and starts, or says why not and exits.
    const bridgeDied = bridge.exited.then((code) => {
      throw new Error(
        `macs bridge exited (${String(code)}): ${bridge?.output() ?? ''}`,
      );
    });
    const started = await Promise.race([
      waitFor(() => findEvents(home, 'bridge.started')[0], {
        timeout: 60_000,
        interval: 100,
        message: 'bridge started',
      }),
      bridgeDied,
    ]);
    expect(started.agent).toBe('gem-1');
    expect(started.data?.pane).toBe(pane);
    expect(started.data?.preset).toBe('gemini');
  });
});
