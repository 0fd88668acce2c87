// `macs stop` of a session of plain shells, and a person's attached `macs
// start` when the session ends under it (issue 29, part 2).
//
// Bug 1: a shell ignores the interrupt key, so every bash worker waited out
// the whole grace period and was killed ("did not exit in time; pane
// killed"): a stop of shells took the grace period (5 s by default).
// Strategy: a session of two bash workers, one at its prompt and one
// running `sleep` in front of its shell; `macs stop` with a long grace must
// report each as ended by the hang-up (none killed), and every process of
// the panes must be gone. The time is measured in `npm run bench`, not here.
//
// Bug 2: `macs stop` from another terminal made the person's attached
// `macs start` print that the session keeps running, and exit 1. Strategy:
// `macs start` runs in a pane of a second private tmux server (a terminal
// of its own), attached to its session; `macs stop` runs from outside, and
// the outer pane's screen must say the session was stopped, with exit 0.
// The same with the tmux server killed by hand instead: it is said to be
// gone (not stopped), with how to bring it back, and exit 1.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MACS_BIN, runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  isAlive,
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

describe('macs stop of shells, and the attached macs start it ends', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let outer: TestTmuxServer | undefined;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-stop-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await outer?.kill();
    outer = undefined;
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 90_000 });
  const screen = async (pane: string) =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
  /** The pids of the session's panes (the shells tmux started). */
  const panePids = async () =>
    (
      (await tmuxOn(
        socket,
        'list-panes',
        '-s',
        '-t',
        '=macs',
        '-F',
        '#{pane_pid}',
      )) ?? ''
    )
      .split('\n')
      .filter(Boolean)
      .map(Number);

  it('bash workers end at the hang-up, not killed after the grace period, and nothing of their panes is left', async () => {
    const start = await macs([
      'start',
      '--detach',
      '--worker',
      'bash --norc',
      '--worker',
      'bash --norc',
    ]);
    expect(start.exitCode, start.stderr).toBe(0);
    const agentPanes = [...start.stdout.matchAll(/worker-\d +(%\d+)/g)].map(
      (m) => m[1] ?? '',
    );
    expect(agentPanes).toHaveLength(2);
    const [atPrompt = '', busy = ''] = agentPanes;
    for (const pane of agentPanes)
      await waitFor(async () => /[$#] ?$/m.test(await screen(pane)), {
        message: `a prompt in ${pane}`,
        timeout: 20_000,
      });
    // The second shell runs a command in front of it (the interrupt key
    // ends it; the shell is back at its prompt and is hung up then).
    const seconds = 3000 + (randomBytes(2).readUInt16BE() % 1000);
    await tmuxOn(socket, 'send-keys', '-t', busy, `sleep ${seconds}`, 'Enter');
    await waitFor(() => processesMentioning(`sleep ${seconds}`).length > 0, {
      message: 'the sleep runs',
    });
    const pids = [
      ...(await panePids()),
      ...processesMentioning(`sleep ${seconds}`).map((line) =>
        Number(line.split(/\s+/, 1)[0]),
      ),
    ];
    expect(pids.length).toBeGreaterThanOrEqual(5); // 2 shells, bridge, view, sleep

    // A grace period far longer than a hang-up takes: a guard, not a verdict.
    const stop = await macs(['stop', '--grace-sec', '60']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).not.toMatch(/did not exit in time/);
    expect(stop.stdout).toMatch(
      new RegExp(`worker-1 +${atPrompt} +exited when hung up`),
    );
    expect(stop.stdout).toMatch(
      new RegExp(`worker-2 +${busy} +exited when hung up`),
    );
    expect(stop.stdout).toMatch(/bridge +%\d+ +exited when interrupted/);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      message: `every process of the panes is gone: ${pids.filter(isAlive).join(' ')}`,
    });
    expect(stop.stdout).not.toMatch(/leftover/);
  });

  /**
   * `macs start` attached in a pane of an outer private server; resolves to
   * that pane once the person's tmux client is on the session.
   */
  async function startAttached(): Promise<string> {
    outer = await startTmuxServer();
    const command = [
      `${JSON.stringify(process.execPath)} ${JSON.stringify(MACS_BIN)}`,
      `start --worker 'bash --norc'; echo "EXIT=$?"`,
    ].join(' ');
    const pane = await outer.spawnPane(
      ['env', '-u', 'TMUX', '-u', 'TMUX_PANE', 'sh', '-c', command],
      {
        width: 200,
        height: 50,
        cwd: home,
        env: { MACS_HOME: home, MACS_TMUX_SOCKET: socket },
      },
    );
    await waitFor(
      async () =>
        (await tmuxOn(socket, 'list-clients', '-F', '#{client_control_mode}'))
          ?.split('\n')
          .includes('0') ?? false,
      { message: "the person's client is attached", timeout: 30_000 },
    );
    return pane;
  }
  const outerScreen = async (pane: string) =>
    (await outer?.tmux('capture-pane', '-p', '-J', '-t', pane)) ?? '';
  const exitOf = async (pane: string) =>
    waitFor(async () => /^EXIT=(\d+)$/m.exec(await outerScreen(pane))?.[1], {
      message: 'macs start ends',
      timeout: 30_000,
    });

  it('macs stop from another terminal: the attached macs start says the session was stopped and exits 0', async () => {
    const pane = await startAttached();
    const stop = await macs(['stop', '--grace-sec', '60']);
    expect(stop.exitCode, stop.stderr).toBe(0);

    expect(await exitOf(pane)).toBe('0');
    const text = await outerScreen(pane);
    expect(text).toMatch(/the session was stopped \(macs stop\)/);
    expect(text).not.toMatch(/keeps running/);
  });

  it('a tmux server killed by hand: the attached macs start says it is gone and how to resume, exit 1', async () => {
    const pane = await startAttached();
    await tmuxOn(socket, 'kill-server');

    expect(await exitOf(pane)).toBe('1');
    const text = await outerScreen(pane);
    expect(text).toMatch(/tmux server is gone .*not ended by macs stop/);
    expect(text).toMatch(/hint: .*start --resume/);
    expect(text).not.toMatch(/keeps running/);
  });
});
