// The session's status window starts its live view when a person attaches
// (src/session/session-layout.ts STATUS_SCRIPT): in a session nobody looks at
// (`--detach`, a host started by a hub) a view drawing for nobody took most
// of the CPU of a 32-agent start. Real parts: `macs start --detach` on a
// private tmux server, and a person's client as a real `tmux attach` run in
// a pane of a second private server (a terminal of its own).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  processesMentioning,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('the status window starts its view when a person attaches', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let viewer: TestTmuxServer | undefined;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-status-window-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await viewer?.kill();
    viewer = undefined;
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) => runMacs(args, { home, socket });
  const statusWindow = async () =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', '=macs:status')) ?? '';
  /** The view's own process (node running `status --watch` for this home). */
  const views = () =>
    processesMentioning(`status --watch --home ${home}`).filter(
      (line) => !/\bsh -c\b/.test(line),
    );

  it('waits while only the bridge is attached, draws once a client attaches, and ends on macs stop', async () => {
    const start = await macs([
      'start',
      '--detach',
      '--worker',
      'bash --norc',
      '--worker',
      'bash --norc',
    ]);
    expect(start.exitCode, start.stderr).toBe(0);
    await waitFor(
      async () => (await statusWindow()).includes('starts when someone'),
      { message: 'the status window says when its view starts' },
    );
    // The bridge is attached the whole time (a control-mode client): that
    // does not start the view. Asked once the bridge runs (it attaches as it
    // starts), so a view it started would be there by now.
    await waitFor(
      async () =>
        ((await tmuxOn(socket, 'list-clients', '-F', '#{client_control_mode}'))
          ?.split('\n')
          .includes('1') ??
          false) &&
        (await macs(['status', '--json'])).stdout.includes('"running": true'),
      { message: "the bridge's control client" },
    );
    expect(views()).toEqual([]);
    expect(await statusWindow()).not.toMatch(/^macs status {2}/m);

    // A person attaches: the view draws in the window.
    viewer = await startTmuxServer();
    await viewer.spawnPane(
      ['env', '-u', 'TMUX', '-u', 'TMUX_PANE', 'tmux', '-L', socket, 'attach'],
      { width: 120, height: 40 },
    );
    await waitFor(
      async () => /^macs status {2}2 agents/m.test(await statusWindow()),
      { message: 'the live view in the status window', timeout: 20_000 },
    );
    expect(views()).toHaveLength(1);

    const stop = await macs(['stop']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/status +%\d+ +exited when interrupted/);
  });

  it('a waiting status window ends at once on macs stop, without starting a view', async () => {
    const start = await macs(['start', '--detach', '--worker', 'bash --norc']);
    expect(start.exitCode, start.stderr).toBe(0);
    await waitFor(
      async () => (await statusWindow()).includes('starts when someone'),
      { message: 'the status window waits' },
    );
    const stop = await macs(['stop']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/status +%\d+ +exited when interrupted/);
    expect(views()).toEqual([]);
  });
});
