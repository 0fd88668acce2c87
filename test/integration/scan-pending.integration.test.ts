// A bridge killed before its first look at the screen was done: what the
// pane printed before the pipe existed is only on its screen and history,
// and the next bridge (which finds its state and its pipe in place) must
// look again. Found by the 30-kill fault test: 3 of 300 requests were never
// detected when a kill fell into the first bridge's scan.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  paneLogPath,
  resolveHomePaths,
  type HomePaths,
} from '../../src/home/paths.js';
import {
  freshAgentState,
  readAgentState,
  saveAgentState,
} from '../../src/state/store.js';
import {
  readAllEvents,
  startBridge,
  waitForEvents,
  type BridgeProcess,
} from '../helpers/macs.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a screen scan cut short by a killed bridge', () => {
  let server: TestTmuxServer;
  let paths: HomePaths;
  let cleanup: () => void;
  let bridge: BridgeProcess | undefined;

  beforeEach(async () => {
    server = await startTmuxServer();
    const made = makeTempHome('macs-scan-');
    cleanup = made.cleanup;
    paths = resolveHomePaths(made.home);
  });
  afterEach(async () => {
    bridge?.child.kill('SIGKILL');
    if (bridge) await bridge.exited;
    await server.kill();
    cleanup();
  });

  it('is done again by the next bridge, which finds what was printed before the pipe', async () => {
    const pane = await server.spawnPane(['sh']);
    await server.tmux(
      'send-keys',
      '-t',
      pane,
      '-l',
      "printf '<<CONTROLLER_REQUEST id=early>>\\nprinted before any pipe\\n<<CONTROLLER_REQUEST_END>>\\n'\n",
    );
    await waitFor(async () =>
      (await server.capture(pane))
        .split('\n')
        .includes('<<CONTROLLER_REQUEST_END>>'),
    );
    // What the killed bridge left: the pane piped into our log by a bridge
    // that is gone, and a saved state whose scan never finished.
    const log = paneLogPath(paths, 'w');
    mkdirSync(paths.panes, { recursive: true, mode: 0o700 });
    writeFileSync(log, '', { mode: 0o600 });
    await server.tmux('pipe-pane', '-t', pane, `exec cat >> '${log}'`);
    for (const [option, value] of [
      ['@macs_agent', 'w'],
      ['@macs_pipe', log],
      ['@macs_pipe_pid', '999999'],
    ] as const)
      await server.tmux('set-option', '-p', '-t', pane, option, value);
    const state = freshAgentState('w', 'shell');
    state.pane = pane;
    state.logInode = statSync(log).ino;
    state.logOffset = 0;
    state.scanPending = true;
    await saveAgentState(paths, state);

    bridge = startBridge(
      ['--worker-pane', pane, '--agent', 'w', '--preset', 'shell', '--quiet'],
      { home: paths.home, socket: server.socket },
    );
    const [detected] = await waitForEvents(paths.home, 'request.detected', {
      requestId: 'w-early',
      message: `the request printed before the pipe; bridge said: ${bridge.output()}`,
    });
    expect(detected?.requestId).toBe('w-early');
    // Resumed, with the pipe kept: only the pending scan made it look.
    const started = readAllEvents(paths.home).find((e) =>
      e.type.startsWith('bridge.'),
    );
    expect(started?.type).toBe('bridge.resumed');
    expect(
      readAllEvents(paths.home).filter((e) => e.type === 'capture.started'),
    ).toEqual([]);
    await waitFor(
      async () => (await readAgentState(paths, 'w'))?.scanPending === undefined,
      { message: 'the scan recorded as done' },
    );
  });
});
